import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpServersStatus, ServerFrame } from "@agentwire-chat/protocol";
import { mcpHungServer, mcpTestServer } from "@agentwire-chat/testkit/fixtures";
import { TestClient } from "@agentwire-chat/testkit/harness";
import { type OpenAIMock, startOpenAIMock } from "@agentwire-chat/testkit/openai-sse-mock";
import { until } from "@agentwire-chat/testkit/until";
import { createLogger } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { type RunningServer, startServer } from "../src/start-server.js";

const METRICS_TOKEN = "operator-metrics-token-0123456789";
const ALICE_TOKEN = "alice-static-token-0123456789";
const DOWN_SECRET = "down-server-secret-0123456789";

let server: RunningServer | undefined;
let mock: OpenAIMock | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  await mock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = mock = dir = undefined;
});

/**
 * The model: asked to echo, it calls test__echo when it was offered (and answers with the result);
 * anything else it answers with text at once, so a turn's first token is the turn start's own cost.
 */
async function startModel(): Promise<OpenAIMock> {
  return startOpenAIMock(async (c) => {
    const offered = JSON.stringify(c.body).includes('"test__echo"');
    if (c.lastUser === "echo please" && offered && c.toolResults === 0) {
      await c.toolCalls([{ id: "call_echo", name: "test__echo", args: { text: "through MCP" } }]);
      return c.finish("tool_calls");
    }
    await c.text(c.toolResults > 0 ? "the tool said so" : "hello ", "there");
    await c.finish();
  });
}

/** The real server with three MCP servers allowed: a working one, one that never answers, one that cannot start. */
async function start(env: Record<string, string> = {}) {
  dir = mkdtempSync(join(tmpdir(), "agentwire-mcp-"));
  mock = await startModel();
  const mcpConfig = join(dir, "mcp.json");
  writeFileSync(
    mcpConfig,
    JSON.stringify({
      servers: {
        test: { command: process.execPath, args: [mcpTestServer] },
        hung: {
          command: process.execPath,
          args: [mcpHungServer],
          env: { ATTEMPTS_FILE: join(dir, "hung-attempts") },
        },
        down: { command: join(dir, "no-such-server"), env: { API_KEY: DOWN_SECRET } },
      },
    }),
  );
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", destination: { write: (line: string) => lines.push(line) } });
  const config = loadConfig({
    PORT: "0",
    DATABASE_PATH: join(dir, "agentwire.db"),
    WORKSPACE_ROOT: join(dir, "ws"),
    OPENAI_COMPAT_ENDPOINTS: `mock=${mock.url}/v1`,
    MOCK_MODEL: "mock-1",
    DEFAULT_PROVIDER: "mock",
    PROVIDER_MAX_RETRIES: "0",
    MCP_CONFIG_PATH: mcpConfig,
    MCP_PINS_PATH: join(dir, "pins.json"),
    MCP_ALLOWED_SERVERS: "test,hung,down",
    // The case: a hung server holds its handshake for the default 20 s.
    MCP_RETRY_INITIAL_MS: "600000",
    MCP_RETRY_MAX_MS: "600000",
    ...env,
  });
  server = await startServer(config, { logger });
  return { server, lines };
}

async function mcpStatus(url: string, token?: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/api/mcp`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, body: await res.json() };
}

const stateOf = (body: unknown, name: string) =>
  (body as McpServersStatus).servers.find((s) => s.name === name);

/** Sends a message and resolves with the time to its first text chunk and the turn's frames. */
async function turn(client: TestClient, content: string) {
  const sent = Date.now();
  client.command("chat_message", { content });
  let firstTokenMs: number | undefined;
  const frames: ServerFrame[] = [];
  for (;;) {
    const frame = await client.nextFrame(30_000);
    frames.push(frame);
    if (frame.type === "chunk" && !frame.done && frame.content && firstTokenMs === undefined) {
      firstTokenMs = Date.now() - sent;
    }
    if (frame.type === "chunk" && frame.done) return { firstTokenMs, frames };
  }
}

describe("MCP servers in the background (issue 36, item 3)", { timeout: 120_000 }, () => {
  it("a hung server allowed: every turn's first token well before its 20 s handshake; tools of the working one used; states at /api/mcp for operators only", async () => {
    const { server, lines } = await start({
      AUTH_MODE: "token",
      AUTH_TOKENS: `alice:${ALICE_TOKEN}`,
      METRICS_TOKEN,
    });
    const client = await TestClient.open(`${server.url.replace("http", "ws")}/ws`, { token: ALICE_TOKEN });
    for (let i = 0; i < 4; i++) {
      const { firstTokenMs } = await turn(client, `hi ${i}`);
      expect(firstTokenMs, `turn ${i}'s first token`).toBeDefined();
      // The target is 3 s on every turn; before, each turn waited out the hung handshake (20 s).
      expect(firstTokenMs, `turn ${i}'s first token`).toBeLessThan(3_000);
    }

    // The working server connected in the background (it was started at start-up, before any turn).
    const operator = async () => (await mcpStatus(server.url, METRICS_TOKEN)).body;
    await until(async () => stateOf(await operator(), "test")?.state === "connected", "test to connect", {
      timeoutMs: 30_000,
    });
    const { frames } = await turn(client, "echo please");
    const ends = frames.filter((f) => f.type === "tool_call_update" && f.status === "end");
    expect(ends).toEqual([expect.objectContaining({ name: "test__echo", result: "echo: through MCP" })]);

    // Five turns in, the hung server is still in its first handshake and the failed one was tried once.
    const body = await operator();
    expect(stateOf(body, "hung")).toMatchObject({ state: "connecting", attempts: 1, tools: 0 });
    expect(stateOf(body, "test")).toMatchObject({ state: "connected", attempts: 1, tools: 7 });
    const down = stateOf(body, "down");
    expect(down).toMatchObject({ state: "failed", attempts: 1, tools: 0 });
    expect(down?.reason).toMatch(/ENOENT/);
    expect(Date.parse(down?.next_retry_at ?? "") - Date.parse(down?.since ?? "")).toBe(600_000);
    expect((body as McpServersStatus).servers.map((s) => s.name)).toEqual(["down", "hung", "test"]);

    // Operators only: no token is 401, a user's API token 403.
    const anonymous = await mcpStatus(server.url);
    expect(anonymous).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    const user = await mcpStatus(server.url, ALICE_TOKEN);
    expect(user).toMatchObject({ status: 403, body: { code: "forbidden" } });
    expect(JSON.stringify([anonymous, user])).not.toContain("hung");

    // And in the metrics.
    const metrics = await (
      await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    expect(metrics).toContain('agentwire_mcp_server_state{server="hung",state="connecting"} 1');
    expect(metrics).toContain('agentwire_mcp_server_state{server="test",state="connected"} 1');
    expect(metrics).toContain('agentwire_mcp_server_state{server="down",state="failed"} 1');
    expect(metrics).toContain('agentwire_mcp_server_tools{server="test"} 7');
    expect(metrics).toContain('agentwire_mcp_handshakes_total{server="down"} 1');

    expect(lines.join("\n")).not.toContain(DOWN_SECRET);
    expect(lines.some((l) => l.includes('"MCP server failed"') && l.includes('"mcp_server":"down"'))).toBe(
      true,
    );
    await client.close();
  });

  it("with AUTH_MODE=none and no METRICS_TOKEN, /api/mcp answers on the loopback app", async () => {
    const { server } = await start();
    const { status, body } = await mcpStatus(server.url);
    expect(status).toBe(200);
    expect((body as McpServersStatus).servers.map((s) => [s.name, s.attempts])).toEqual([
      ["down", 1],
      ["hung", 1],
      ["test", 1],
    ]);
  });
});
