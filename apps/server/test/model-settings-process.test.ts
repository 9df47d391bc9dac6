import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { isDone } from "@agentwire-chat/testkit/chat-harness";
import { TestClient } from "@agentwire-chat/testkit/harness";
import { type OpenAIMock, startOpenAIMock } from "@agentwire-chat/testkit/openai-sse-mock";
import { createLogger } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { type RunningServer, startServer } from "../src/start-server.js";

let server: RunningServer | undefined;
let mock: OpenAIMock | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  await mock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = mock = dir = undefined;
});

/** The model: asked to "dig", the root delegates to a subtask; everything else is answered with text. */
function startModel(): Promise<OpenAIMock> {
  return startOpenAIMock(async (c) => {
    const system = String(c.body.messages[0]?.content ?? "");
    if (c.lastUser === "dig" && c.toolResults === 0 && !system.startsWith("You are a focused sub-agent")) {
      await c.toolCalls([
        { id: "s1", name: "run_subtask", args: { title: "Dig", instructions: "dig deeper" } },
      ]);
      return c.finish("tool_calls");
    }
    await c.text("ok");
    await c.finish();
  });
}

async function turn(client: TestClient, data: Record<string, unknown>): Promise<ServerFrame[]> {
  client.command("chat_message", data);
  return client.collectUntil(isDone);
}

describe("MODEL_SETTINGS_FILE and a scope's model_settings through the real server and the openai client", () => {
  it("the model's output cap reaches every request body; a scope's replaces it at the root and in its subtask", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-model-settings-"));
    mock = await startModel();
    const modelSettings = join(dir, "models.json");
    writeFileSync(
      modelSettings,
      JSON.stringify({
        models: {
          "mock-1": { max_output_tokens: 900 },
          "mock:mock-1": { max_output_tokens: 333, reasoning_effort: "low", parallel_tool_calls: false },
        },
      }),
    );
    const scopesFile = join(dir, "scopes.json");
    writeFileSync(
      scopesFile,
      JSON.stringify({ scopes: { short: { model_settings: { max_output_tokens: 77, temperature: 0.1 } } } }),
    );
    const config = loadConfig({
      PORT: "0",
      DATABASE_PATH: join(dir, "agentwire.db"),
      WORKSPACE_ROOT: join(dir, "ws"),
      OPENAI_COMPAT_ENDPOINTS: `mock=${mock.url}/v1`,
      MOCK_MODEL: "mock-1",
      DEFAULT_PROVIDER: "mock",
      PROVIDER_MAX_RETRIES: "0",
      MODEL_SETTINGS_FILE: modelSettings,
      CONTEXT_SCOPES_FILE: scopesFile,
    });
    server = await startServer(config, { logger: createLogger({ level: "silent" }) });
    const client = await TestClient.open(`${server.url.replace("http", "ws")}/ws`);
    await turn(client, { content: "hello" });
    await turn(client, { content: "dig", chat_context: { kind: "short" } });
    client.close();
    const bodies = mock.completions.map(
      (c) =>
        c.body as {
          max_tokens?: number;
          temperature?: number;
          reasoning_effort?: string;
          parallel_tool_calls?: boolean;
          tools?: unknown[];
        },
    );
    // Compatible endpoints take the cap as max_tokens: the provider-qualified entry, then the scope's.
    expect(bodies.map((b) => b.max_tokens)).toEqual([333, 77, 77, 77]);
    // The scope replaces the table's entry key by key: its temperature joins the table's effort.
    expect(bodies.map((b) => b.temperature)).toEqual([undefined, 0.1, 0.1, 0.1]);
    expect(bodies.map((b) => b.reasoning_effort)).toEqual(["low", "low", "low", "low"]);
    // parallel_tool_calls goes only with tools (OpenAI refuses it alone).
    for (const b of bodies) expect(b.parallel_tool_calls).toBe(b.tools?.length ? false : undefined);
    expect(bodies.some((b) => b.parallel_tool_calls === false)).toBe(true);
    expect(String(mock.completions[2]?.body.messages[0]?.content)).toMatch(/^You are a focused sub-agent/);
  });
});
