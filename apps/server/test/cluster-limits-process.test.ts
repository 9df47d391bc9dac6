import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import type { ServerFrame, StoredMessage } from "@agentwire/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  redisMissing,
  startRedis,
  type TestRedis,
} from "../../../packages/websocket/test/support/redis-server.js";
import { skipMissingService } from "../../../packages/websocket/test/support/skip-missing-service.js";

/**
 * Two real server processes on one database and one real Redis: the per-user connection cap and turn
 * limit hold across both, and a client tool call waiting on A is answered by the client reconnected to B.
 */
const skip = skipMissingService(redisMissing());
const root = join(import.meta.dirname, "../../..");
const main = join(root, "apps/server/src/main.ts");
const provider = join(import.meta.dirname, "fixtures/cluster-limits-provider.ts");
const LEASE_MS = 600;
const run = promisify(execFile);
let redis: TestRedis | undefined;
const children: ChildProcess[] = [];
const sockets: WebSocket[] = [];
let dir: string;

beforeAll(async () => {
  if (!skip) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.terminate();
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

type Instance = { proc: ChildProcess; url: string };
type User = { name: string; token: string };

let userNo = 0;
/** A user of its own per test: nothing counted for one test's users can leak into another's. */
const newUser = (): User => {
  const name = `user${++userNo}x${Date.now()}`;
  return { name, token: `${name}-token-0123456789abcdef` };
};

async function instance(
  name: string,
  users: User[],
  extraEnv: Record<string, string> = {},
): Promise<Instance> {
  const proc = spawn(process.execPath, ["--import", "tsx", "--conditions=@agentwire/source", main], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      DATABASE_PATH: join(dir, "shared.db"),
      AGENTWIRE_SCRIPTED_PROVIDER: provider,
      DEFAULT_PROVIDER: "scripted",
      REDIS_URL: redis!.url,
      INSTANCE_ID: name,
      TURN_LEASE_MS: String(LEASE_MS),
      AUTH_MODE: "token",
      AUTH_TOKENS: users.map((u) => `${u.name}:${u.token}`).join(","),
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(proc);
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "agentwire listening" && entry.url) resolve(entry.url);
    });
    proc.once("exit", (code) => reject(new Error(`${name} exited with ${code} before listening`)));
  });
  return { proc, url };
}

/** Both instances on one database file and one Redis. */
async function pair(users: User[], env: Record<string, string>): Promise<[Instance, Instance]> {
  dir = mkdtempSync(join(tmpdir(), "agentwire-cluster-limits-"));
  const a = await instance("a", users, env);
  const b = await instance("b", users, env);
  return [a, b];
}

/** The upgrade's HTTP status: 101 when a socket opened (it is kept open), else e.g. 429. */
function upgrade(url: string, user: User): Promise<{ status: number; ws?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace("http", "ws")}/ws`, {
      headers: { authorization: `Bearer ${user.token}` },
    });
    sockets.push(ws);
    ws.once("open", () => resolve({ status: 101, ws }));
    ws.once("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.once("error", reject);
  });
}

async function client(url: string, user: User) {
  const { status, ws } = await upgrade(url, user);
  if (!ws) throw new Error(`upgrade refused with HTTP ${status}`);
  const frames: ServerFrame[] = [];
  const waiters: { match: (f: ServerFrame) => boolean; resolve: (f: ServerFrame) => void }[] = [];
  ws.on("message", (data) => {
    const frame = JSON.parse(String(data)) as ServerFrame;
    frames.push(frame);
    for (const w of waiters.splice(0)) {
      if (w.match(frame)) w.resolve(frame);
      else waiters.push(w);
    }
  });
  return {
    ws,
    frames,
    send: (command: string, data: unknown, requestId?: string) =>
      ws.send(JSON.stringify({ command, data, ...(requestId !== undefined && { request_id: requestId }) })),
    until: (match: (f: ServerFrame) => boolean) =>
      new Promise<ServerFrame>((resolve) => {
        const found = frames.find(match);
        if (found) resolve(found);
        else waiters.push({ match, resolve });
      }),
  };
}

const isDone = (f: ServerFrame) => f.type === "chunk" && f.done === true;
const errorFor = (requestId: string) => (f: ServerFrame) => f.type === "error" && f.request_id === requestId;

/** Polls `check` until it holds (a condition, not a fixed sleep); fails after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How many sockets Redis counts for the user, on every instance together. */
async function countedSockets(user: User): Promise<number> {
  const { stdout } = await run("redis-cli", ["-u", redis!.url, "ZCARD", `aw:conns:${user.name}`]);
  return Number(stdout.trim());
}

async function messagesOf(url: string, user: User, threadId: string): Promise<StoredMessage[]> {
  const response = await fetch(`${url}/api/threads/${threadId}/messages`, {
    headers: { authorization: `Bearer ${user.token}` },
  });
  return ((await response.json()) as { messages: StoredMessage[] }).messages;
}

// Each test starts two server processes: on a busy machine that alone can take seconds.
describe.skipIf(skip)(
  "per-user limits and client tool answers across two instances",
  { timeout: 60_000 },
  () => {
    it("the connection cap holds across A and B; a closed socket frees its slot; a killed instance's lapse", async () => {
      const alice = newUser();
      const bob = newUser();
      const [a, b] = await pair([alice, bob], { MAX_CONNECTIONS_PER_USER: "2" });
      const onA = await upgrade(a.url, alice);
      const onB = await upgrade(b.url, alice);
      expect([onA.status, onB.status]).toEqual([101, 101]);
      expect((await upgrade(a.url, alice)).status).toBe(429);
      expect((await upgrade(b.url, alice)).status).toBe(429);
      // The cap is per user.
      expect((await upgrade(a.url, bob)).status).toBe(101);

      onB.ws!.close();
      await eventually(async () => ((await countedSockets(alice)) === 1 ? true : undefined));
      expect((await upgrade(b.url, alice)).status).toBe(101);
      expect((await upgrade(b.url, alice)).status).toBe(429);

      // A dies with alice's socket open: its entry lapses within the lease and B admits her again.
      a.proc.kill("SIGKILL");
      const killedAt = Date.now();
      await eventually(async () => ((await upgrade(b.url, alice)).status === 101 ? true : undefined));
      expect(Date.now() - killedAt).toBeLessThan(LEASE_MS * 4);
      expect((await upgrade(b.url, alice)).status).toBe(429);
    });

    it("the per-user turn limit holds across A and B: rate_limited wherever the extra turn lands", async () => {
      const alice = newUser();
      const bob = newUser();
      // A burst of 2 and one turn a minute: nothing refills while the test runs.
      const [a, b] = await pair([alice, bob], { USER_TURNS_PER_MINUTE: "1", USER_TURN_BURST: "2" });
      const onA = await client(a.url, alice);
      const onB = await client(b.url, alice);
      onA.send("chat_message", { content: "one" }, "t1");
      await onA.until(isDone);
      onB.send("chat_message", { content: "two" }, "t2");
      await onB.until(isDone);
      onA.send("chat_message", { content: "three" }, "t3");
      expect(await onA.until(errorFor("t3"))).toMatchObject({ code: "rate_limited" });
      onB.send("chat_message", { content: "three again" }, "t4");
      expect(await onB.until(errorFor("t4"))).toMatchObject({ code: "rate_limited" });
      // Nothing started: each socket saw exactly one turn end.
      expect(onA.frames.filter(isDone)).toHaveLength(1);
      expect(onB.frames.filter(isDone)).toHaveLength(1);
      // Another user's budget is their own.
      const bobOnB = await client(b.url, bob);
      bobOnB.send("chat_message", { content: "hi" });
      await bobOnB.until(isDone);
      expect(bobOnB.frames.some((f) => f.type === "error")).toBe(false);
    });

    it("a client tool call waiting on A is answered by the client reconnected to B; the turn on A goes on", async () => {
      const alice = newUser();
      const [a, b] = await pair([alice], { CLIENT_TOOL_RECONNECT_GRACE_MS: "20000" });
      const onA = await client(a.url, alice);
      onA.send("client_tools_manifest", {
        tools: [
          {
            name: "ui_notify",
            description: "Show a notification in the editor.",
            input_schema: { type: "object", properties: { message: { type: "string" } } },
          },
        ],
      });
      onA.send("chat_message", {
        content: "use the editor",
        chat_context: { kind: "editor", workflow_id: "wf-1" },
      });
      const call = (await onA.until((f) => f.type === "tool_call")) as Extract<
        ServerFrame,
        { type: "tool_call" }
      >;
      expect(call).toMatchObject({ name: "ui_notify", args: { message: "hello" } });
      const threadId = call.thread_id as string;

      // The socket drops; A has noticed once it no longer counts it.
      onA.ws.terminate();
      await eventually(async () => ((await countedSockets(alice)) === 0 ? true : undefined));

      const onB = await client(b.url, alice);
      onB.send("resume_chat", { thread_id: threadId, last_seq: 0 });
      expect(await onB.until((f) => f.type === "chat_resumed")).toMatchObject({ status: "running" });
      onB.send("tool_result", { tool_call_id: call.tool_call_id, ok: true, result: { shown: true } }, "r1");
      await onB.until(isDone);
      expect(onB.frames.some(errorFor("r1"))).toBe(false);
      const end = onB.frames.find(
        (f) => f.type === "tool_call_update" && f.status === "end" && f.tool_call_id === call.tool_call_id,
      );
      expect(end).toMatchObject({ result: '{"shown":true}' });
      expect((end as { is_error?: boolean }).is_error).toBeFalsy();
      const rows = await messagesOf(b.url, alice, threadId);
      expect(rows.at(-1)).toMatchObject({
        role: "assistant",
        content: 'the editor said {"shown":true}',
        status: "complete",
      });

      // Answered once: a second answer via B is not_found, as it would be on A.
      onB.send("tool_result", { tool_call_id: call.tool_call_id, ok: true }, "r2");
      expect(await onB.until(errorFor("r2"))).toMatchObject({ code: "not_found" });
    });

    it("an approval asked via A is given via B: the approved client tool runs on B's socket and the turn ends", async () => {
      const alice = newUser();
      const [a, b] = await pair([alice], { TOOL_APPROVAL_EDITOR_MUTATE: "ask" });
      const manifest = {
        tools: [
          {
            name: "ui_notify",
            description: "Show a notification in the editor.",
            input_schema: { type: "object", properties: { message: { type: "string" } } },
          },
        ],
      };
      const onA = await client(a.url, alice);
      onA.send("client_tools_manifest", manifest);
      onA.send("chat_message", {
        content: "use the editor",
        chat_context: { kind: "editor", workflow_id: "wf-1" },
      });
      const request = (await onA.until((f) => f.type === "tool_approval_request")) as Extract<
        ServerFrame,
        { type: "tool_approval_request" }
      >;
      const threadId = (onA.frames[0] as { thread_id: string }).thread_id;

      const onB = await client(b.url, alice);
      onB.send("client_tools_manifest", manifest);
      onB.send("resume_chat", { thread_id: threadId, last_seq: 0 });
      await onB.until((f) => f.type === "chat_resumed");
      onB.send("tool_approval_response", { approval_id: request.approval_id, decision: "allow" }, "ok");
      const call = (await onB.until((f) => f.type === "tool_call")) as Extract<
        ServerFrame,
        { type: "tool_call" }
      >;
      onB.send("tool_result", { tool_call_id: call.tool_call_id, ok: true, result: "shown" }, "r1");
      await onB.until(isDone);
      expect(onB.frames.some((f) => f.type === "error")).toBe(false);
      expect(onA.frames.some((f) => f.type === "tool_call")).toBe(false);
      const rows = await messagesOf(a.url, alice, threadId);
      expect(rows.at(-1)).toMatchObject({
        role: "assistant",
        content: "the editor said shown",
        status: "complete",
      });
    });
  },
);
