import { promises as fsp } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { mcpHungServer, mcpTestServer } from "@agentwire-chat/testkit/fixtures";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  InMemoryPinStore,
  McpManager,
  type McpManagerOptions,
  type McpServersConfig,
  mcpRetryDelayMs,
} from "../../src/tools/builtin/index.js";
import { okOutput, runTool, toolNamed } from "./run-tool.js";

const FIXTURE = mcpTestServer;
const HUNG = mcpHungServer;

let dir: string;
const managers: McpManager[] = [];
const servers: Server[] = [];

beforeEach(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), "aw-mcp-bg-"));
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(resolve));
    }),
  );
  await fsp.rm(dir, { recursive: true, force: true });
});

type Note = { msg: string; at: number } & Record<string, unknown>;

function manager(config: McpServersConfig, opts: Partial<McpManagerOptions> = {}) {
  const notes: Note[] = [];
  const log = (obj: object, msg: string) => notes.push({ ...obj, msg, at: Date.now() });
  const m = new McpManager({
    config,
    pins: new InMemoryPinStore(),
    logger: { warn: log, info: log },
    ...opts,
  });
  managers.push(m);
  return { m, notes };
}

const stateOf = (m: McpManager, name: string) => m.status().find((s) => s.name === name);

/** Waits on a condition nothing signals (a state reached in the background). */
const until = (check: () => boolean, what: string, timeout = 20_000) =>
  vi.waitFor(
    () => {
      if (!check()) throw new Error(`waiting for ${what}`);
    },
    { timeout, interval: 5 },
  );

/**
 * A streamable-HTTP "MCP server" that accepts every request and never answers: the handshake hangs.
 * `requests` counts the handshakes tried, independently of the manager's own count.
 */
async function hungHttpServer(): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req) => {
    requests++;
    req.resume();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, requests: () => requests };
}

describe("McpManager: connecting in the background", () => {
  it("offers a working server's tools while a hung one is still in its handshake, never waiting on it", async () => {
    const { m } = manager(
      {
        servers: {
          test: { command: process.execPath, args: [FIXTURE] },
          hung: { command: process.execPath, args: [HUNG], env: { ATTEMPTS_FILE: path.join(dir, "a") } },
        },
      },
      { connectTimeoutMs: 60_000 },
    );
    // toolsFor is synchronous: a turn asking for tools cannot wait on any handshake.
    const first = m.toolsFor("alice", ["test", "hung"]);
    expect(first.tools).toEqual([]);
    expect(first.unavailable).toEqual([
      { server: "test", reason: "connecting" },
      { server: "hung", reason: "connecting" },
    ]);
    expect(stateOf(m, "hung")).toMatchObject({ state: "connecting", attempts: 1, tools: 0 });
    await until(() => stateOf(m, "test")?.state === "connected", "test to connect");
    // In parallel: the hung server's handshake is still under way (its timeout is a minute away).
    expect(stateOf(m, "hung")?.state).toBe("connecting");
    const { tools, unavailable } = m.toolsFor("alice", ["test", "hung"]);
    expect(unavailable).toContainEqual({ server: "hung", reason: "connecting" });
    expect(okOutput<string>(await runTool(toolNamed(tools, "test__echo"), { text: "hi" }))).toBe("echo: hi");
    expect(stateOf(m, "test")).toMatchObject({ state: "connected", tools: 7, attempts: 1 });
    // Closing aborts the hung handshake instead of waiting out its minute.
    const closing = Date.now();
    await m.close();
    expect(Date.now() - closing).toBeLessThan(30_000);
    expect(stateOf(m, "hung")?.state).toBe("connecting");
  });

  it("starts no server that no policy named, until one names it", async () => {
    const marker = path.join(dir, "marker");
    const { m } = manager({
      servers: { test: { command: process.execPath, args: [FIXTURE], env: { MARKER_FILE: marker } } },
    });
    m.connect(["other"]);
    await m.settled();
    expect(stateOf(m, "test")).toMatchObject({ state: "idle", attempts: 0 });
    m.toolsFor("alice", ["test"]);
    expect(stateOf(m, "test")?.state).toBe("connecting");
    await m.settled();
    expect(stateOf(m, "test")?.state).toBe("connected");
  });

  it("does not retry a failed server per turn: the next handshake waits for the backoff", async () => {
    const hung = await hungHttpServer();
    // Long enough that the handshake's request reaches the server even on a busy machine.
    const { m } = manager(
      { servers: { hung: { url: hung.url } } },
      { connectTimeoutMs: 2_000, retry: { initialMs: 600_000, maxMs: 600_000 } },
    );
    m.connect(["hung"]);
    await until(() => hung.requests() === 1, "the handshake to reach the server");
    await m.settled();
    const failed = stateOf(m, "hung");
    expect(failed).toMatchObject({ state: "failed", attempts: 1, tools: 0 });
    expect(failed?.reason).toBe("no answer to the handshake within 2000 ms");
    expect(Date.parse(failed?.next_retry_at ?? "") - Date.parse(failed?.since ?? "")).toBe(600_000);
    for (let turn = 0; turn < 20; turn++) {
      expect(m.toolsFor(`user${turn % 3}`, ["hung"]).unavailable).toEqual([
        { server: "hung", reason: "no answer to the handshake within 2000 ms" },
      ]);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(hung.requests()).toBe(1);
    expect(stateOf(m, "hung")?.attempts).toBe(1);
  });

  it("retries a failed server with exponential backoff, capped", async () => {
    const hung = await hungHttpServer();
    const retry = { initialMs: 100, maxMs: 400 };
    const { m, notes } = manager({ servers: { hung: { url: hung.url } } }, { connectTimeoutMs: 100, retry });
    m.connect(["hung"]);
    const failures = () => notes.filter((n) => n.msg === "MCP server failed");
    await until(() => failures().length >= 5, "five failed handshakes", 60_000);
    const seen = failures().slice(0, 5);
    expect(seen.map((n) => n.retry_in_ms)).toEqual([100, 200, 400, 400, 400]);
    expect(seen.map((n) => n.attempts)).toEqual([1, 2, 3, 4, 5]);
    // Lower bounds only (a busy machine makes everything later, never sooner): each handshake
    // started after the previous failure's backoff and took its timeout before failing.
    for (let i = 1; i < seen.length; i++) {
      const gap = (seen[i]?.at ?? 0) - (seen[i - 1]?.at ?? 0);
      expect(gap).toBeGreaterThanOrEqual((seen[i - 1]?.retry_in_ms as number) + 100 - 2);
    }
    // Counted by the server too: never more handshakes than the manager says it tried (fewer only
    // when a timeout beat a request to the socket on a busy machine).
    expect(hung.requests()).toBeGreaterThan(0);
    expect(hung.requests()).toBeLessThanOrEqual(stateOf(m, "hung")?.attempts ?? 0);
  });

  it("doubles the wait per failure in a row up to the cap", () => {
    const retry = { initialMs: 1_000, maxMs: 60_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 100].map((n) => mcpRetryDelayMs(n, retry))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
  });

  it("keeps secrets out of a failure's reason", async () => {
    const token = "sk-mcp-secret-0123456789";
    const server = createServer((req, res) => {
      req.resume();
      // A careless server echoing the request's credentials in its error.
      res.writeHead(401, { "content-type": "text/plain" });
      res.end(`bad credentials: ${req.headers.authorization} and ${req.url}`);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const { m, notes } = manager(
      {
        servers: {
          remote: {
            url: `http://127.0.0.1:${port}/mcp?key=query-secret-value`,
            headers: { authorization: `Bearer ${token}` },
          },
        },
      },
      { retry: { initialMs: 600_000, maxMs: 600_000 } },
    );
    m.connect(["remote"]);
    await m.settled();
    const status = stateOf(m, "remote");
    expect(status?.state).toBe("failed");
    expect(status?.reason).toMatch(/Error POSTing to endpoint: bad credentials/);
    expect(status?.reason).toContain("[redacted]");
    const everything = JSON.stringify([status, m.toolsFor("alice", ["remote"]), notes]);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain("query-secret-value");
  });

  it("says why a server could not be reached: nothing listening, a command that does not exist", async () => {
    const closed = await hungHttpServer();
    servers.pop()?.close();
    await new Promise((resolve) => setImmediate(resolve));
    const { m } = manager(
      {
        servers: {
          refused: { url: closed.url },
          missing: { command: path.join(dir, "no-such-server"), args: [] },
        },
      },
      { retry: { initialMs: 600_000, maxMs: 600_000 } },
    );
    m.connect(["refused", "missing"]);
    await m.settled();
    expect(stateOf(m, "refused")).toMatchObject({ state: "failed", attempts: 1 });
    expect(stateOf(m, "refused")?.reason).toMatch(/ECONNREFUSED/);
    expect(stateOf(m, "missing")?.reason).toMatch(/ENOENT/);
  });

  it("stops a hung server that ignores its stdin closing, when its handshake fails and on close()", async () => {
    const attempts = path.join(dir, "attempts");
    const pids = async () =>
      (await fsp.readFile(attempts, "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);
    const hung = (timeoutMs: number) =>
      manager(
        {
          servers: {
            hung: {
              command: process.execPath,
              args: [HUNG],
              env: { ATTEMPTS_FILE: attempts, STUBBORN: "1" },
            },
          },
        },
        { connectTimeoutMs: timeoutMs, retry: { initialMs: 600_000, maxMs: 600_000 } },
      ).m;
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };

    const timesOut = hung(3_000);
    timesOut.connect(["hung"]);
    await vi.waitFor(async () => expect(await pids()).toHaveLength(1), { timeout: 20_000, interval: 10 });
    await timesOut.settled();
    expect(stateOf(timesOut, "hung")?.state).toBe("failed");
    const [first] = await pids();
    expect(alive(first as number)).toBe(false);

    const closes = hung(600_000);
    closes.connect(["hung"]);
    await vi.waitFor(async () => expect(await pids()).toHaveLength(2), { timeout: 20_000, interval: 10 });
    await closes.close();
    const [, second] = await pids();
    expect(alive(second as number)).toBe(false);
  });

  it("marks a server whose connection closes as failed and reconnects after the backoff", async () => {
    const marker = path.join(dir, "marker");
    const { m } = manager(
      { servers: { test: { command: process.execPath, args: [FIXTURE], env: { MARKER_FILE: marker } } } },
      { retry: { initialMs: 50, maxMs: 50 } },
    );
    m.connect(["test"]);
    await m.settled();
    const [shared] = (await fsp.readFile(marker, "utf8")).split("\n").map(Number);
    process.kill(shared as number, "SIGKILL");
    await until(() => (stateOf(m, "test")?.attempts ?? 0) >= 2, "a second handshake");
    await until(() => stateOf(m, "test")?.state === "connected", "the reconnection");
    expect(m.toolsFor("alice", ["test"]).tools.length).toBe(7);
  });
});
