import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolOutcome } from "@agentwire-chat/agents";
import { type Cluster, startCluster } from "@agentwire-chat/cluster";
import type { ServerFrame } from "@agentwire-chat/protocol";
import type { Storage } from "@agentwire-chat/storage";
import { openTestStorage } from "@agentwire-chat/testkit/harness";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/create-logger.js";
import { UIToolProxy } from "../../src/tools/ui-tool-proxy.js";
import { recoverOrEndTurn } from "../../src/turns/recover-turns.js";
import { TurnRegistry } from "../../src/turns/turn-registry.js";

/**
 * Client tool answers across two real cluster instances on one Redis: a call waits in A's proxy, its
 * socket closes, and the user's answer given on B reaches it through the lease and the command bus.
 */
const skip = skipMissingService(redisMissing());
let server: TestRedis | undefined;
let dir: string;
let storage: Storage | undefined;
const clusters: Cluster[] = [];

beforeAll(async () => {
  if (skip) return;
  server = await startRedis();
  dir = mkdtempSync(join(tmpdir(), "agentwire-routing-"));
  storage = await openTestStorage(join(dir, "routing.db"));
});
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await storage?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Node = { cluster: Cluster; proxy: UIToolProxy };

/** One instance: its own cluster connections and client tool proxy, served like start-server does. */
async function node(name: string, reconnectGraceMs = 5_000): Promise<Node> {
  const logger = createLogger({ level: "silent" });
  const cluster = await startCluster({
    url: server!.url,
    logger,
    instanceId: `${name}-${Date.now()}`,
    leaseMs: 60_000,
  });
  clusters.push(cluster);
  const proxy = new UIToolProxy({ reconnectGraceMs, timeoutMs: 20_000 });
  const repos = storage!.repos;
  await cluster.serve({
    turns: new TurnRegistry(),
    repos,
    endLostTurn: (turn) => recoverOrEndTurn(cluster.frames, repos, logger, turn),
    uiTools: proxy,
  });
  return { cluster, proxy };
}

const spec = {
  name: "ui_notify",
  description: "Show a notification.",
  input_schema: { type: "object", properties: { message: { type: "string" } } },
};
let callNo = 0;

/**
 * A turn on `owner` (holding the thread's lease) calls the client tool on a socket of `user`; resolves
 * once the `tool_call` frame went out. `closeSocket` is the socket going away.
 */
async function callOn(owner: Node, user = "alice") {
  const threadId = `thread-${++callNo}-${Date.now()}`;
  const turnId = `turn-${callNo}`;
  expect(await owner.cluster.leases.claim(threadId, turnId, () => {})).toBe(true);
  const socket = new AbortController();
  let sent!: (frame: ServerFrame) => void;
  const toolCall = new Promise<ServerFrame>((resolve) => {
    sent = resolve;
  });
  const connectionId = `conn-${callNo}`;
  const announced = owner.proxy.announce(
    {
      connectionId,
      userId: user,
      send: (f) => {
        sent(f);
        return true;
      },
      signal: socket.signal,
    },
    [spec],
  );
  expect(announced.ok).toBe(true);
  const scope = {
    userId: user,
    threadId,
    chatContext: { kind: "editor" as const, workflow_id: "w" },
    connectionId,
  };
  const [tool] = owner.proxy.clientTools(scope);
  const toolCallId = `call-${callNo}`;
  const outcome: Promise<ToolOutcome> = tool!.execute(
    { message: "hi" },
    { toolCallId, depth: 0, parentId: null, signal: new AbortController().signal },
  );
  await toolCall;
  return { threadId, toolCallId, connectionId, outcome, closeSocket: () => socket.abort() };
}

describe.skipIf(skip)("client tool answers routed between instances", () => {
  it("an answer given on B reaches the call waiting on A once A's socket closed, once", async () => {
    const a = await node("a");
    const b = await node("b");
    const call = await callOn(a);
    call.closeSocket();
    const data = { tool_call_id: call.toolCallId, ok: true, result: { shown: true } };
    expect(await b.proxy.answer("b-socket", "alice", data)).toBe(true);
    expect(await call.outcome).toEqual({ type: "result", output: { shown: true } });
    // Answered once: a second answer, on either instance, finds nothing.
    expect(await b.proxy.answer("b-socket", "alice", data)).toBe(false);
    expect(await a.proxy.answer("a-socket", "alice", data)).toBe(false);
    expect(a.proxy.pendingCount()).toBe(0);
  });

  it("while A's socket is open only that socket may answer; another user's answer never lands", async () => {
    const a = await node("a");
    const b = await node("b");
    const call = await callOn(a);
    const data = { tool_call_id: call.toolCallId, ok: false, error: "read-only" };
    expect(await b.proxy.answer("b-socket", "alice", data)).toBe(false);
    call.closeSocket();
    expect(await b.proxy.answer("b-socket", "mallory", data)).toBe(false);
    expect(a.proxy.pendingCount()).toBe(1);
    expect(await b.proxy.answer("b-socket", "alice", data)).toBe(true);
    expect(await call.outcome).toEqual({ type: "result", output: "read-only", isError: true });
  });

  it("a call whose socket closed ends after the grace without an answer; a late answer finds nothing", async () => {
    const a = await node("a", 150);
    const b = await node("b");
    const call = await callOn(a);
    call.closeSocket();
    const outcome = await call.outcome;
    expect(outcome).toMatchObject({ isError: true, output: expect.stringMatching(/disconnected/) });
    const data = { tool_call_id: call.toolCallId, ok: true };
    expect(await b.proxy.answer("b-socket", "alice", data)).toBe(false);
  });

  it("an answer on the instance running the turn, from the user's new socket there, needs no routing", async () => {
    const a = await node("a");
    const call = await callOn(a);
    call.closeSocket();
    const data = { tool_call_id: call.toolCallId, ok: true, result: "done" };
    expect(await a.proxy.answer("a-new-socket", "alice", data)).toBe(true);
    expect(await call.outcome).toEqual({ type: "result", output: "done" });
  });

  it("an owner that no longer listens (dead) is not waited for", async () => {
    const b = await node("b");
    const redis = new Redis(server!.url);
    try {
      const threadId = `thread-ghost-${Date.now()}`;
      await redis.set(b.cluster.leases.key(threadId), "ghost turn-1", "PX", 60_000);
      await b.cluster.toolCalls.register({ userId: "alice", toolCallId: "call-ghost", threadId }, 60_000);
      const started = Date.now();
      expect(await b.proxy.answer("b-socket", "alice", { tool_call_id: "call-ghost", ok: true })).toBe(false);
      // Far below the 5 s reply timeout: nobody received the command, so nobody is waited for.
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await redis.quit();
    }
  });
});
