import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { until } from "@agentwire-chat/testkit/until";
import { describe, expect, it } from "vitest";
import { type Instance, isDone, messagesOf, useCluster } from "./support/cluster-instances.js";

/**
 * Two real server processes on one real Postgres and one real Redis: the per-user connection cap and
 * turn limit hold across both, and a client tool call waiting on A is answered by the client reconnected to B.
 */
const LEASE_MS = 600;
const run = promisify(execFile);
const cluster = useCluster({
  provider: join(import.meta.dirname, "fixtures/cluster-limits-provider.ts"),
  leaseMs: LEASE_MS,
});

type User = { name: string; token: string };

let userNo = 0;
/** A user of its own per test: nothing counted in the shared Redis for one test's users leaks into another's. */
const newUser = (): User => {
  const name = `user${++userNo}x${Date.now()}`;
  return { name, token: `${name}-token-0123456789abcdef` };
};

const bearer = (user: User) => ({ authorization: `Bearer ${user.token}` });
const upgrade = (url: string, user: User) => cluster.upgrade(url, bearer(user));
const client = (url: string, user: User) => cluster.client(url, bearer(user));

/** Both instances on the test's database and the shared Redis, with token auth for `users`. */
async function pair(users: User[], env: Record<string, string>): Promise<[Instance, Instance]> {
  const auth = { AUTH_MODE: "token", AUTH_TOKENS: users.map((u) => `${u.name}:${u.token}`).join(",") };
  const a = await cluster.instance("a", { ...auth, ...env });
  const b = await cluster.instance("b", { ...auth, ...env });
  return [a, b];
}

const errorFor = (requestId: string) => (f: ServerFrame) => f.type === "error" && f.request_id === requestId;

/** How many sockets Redis counts for the user, on every instance together. */
async function countedSockets(user: User): Promise<number> {
  const { stdout } = await run("redis-cli", ["-u", cluster.redisUrl(), "ZCARD", `aw:conns:${user.name}`]);
  return Number(stdout.trim());
}

// Each test starts two server processes: on a busy machine that alone can take seconds.
describe.skipIf(cluster.skip)(
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
      await until(async () => (await countedSockets(alice)) === 1, "Redis to count one socket for alice", {
        everyMs: 20,
      });
      expect((await upgrade(b.url, alice)).status).toBe(101);
      expect((await upgrade(b.url, alice)).status).toBe(429);

      // A dies with alice's socket open: its entry lapses within the lease and B admits her again.
      a.proc.kill("SIGKILL");
      const killedAt = Date.now();
      await until(async () => (await upgrade(b.url, alice)).status === 101, "B to admit alice again", {
        everyMs: 20,
      });
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
      await until(async () => (await countedSockets(alice)) === 0, "Redis to count no socket for alice", {
        everyMs: 20,
      });

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
      const rows = await messagesOf(b.url, threadId, alice.token);
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
      const rows = await messagesOf(a.url, threadId, alice.token);
      expect(rows.at(-1)).toMatchObject({
        role: "assistant",
        content: "the editor said shown",
        status: "complete",
      });
    });

    it("allow_for_thread given via A holds on B: the next call of the tool in the thread runs without asking", async () => {
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
      const editor = { chat_context: { kind: "editor", workflow_id: "wf-1" } };
      const onA = await client(a.url, alice);
      onA.send("client_tools_manifest", manifest);
      onA.send("chat_message", { content: "use the editor", ...editor });
      const request = (await onA.until((f) => f.type === "tool_approval_request")) as Extract<
        ServerFrame,
        { type: "tool_approval_request" }
      >;
      const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
      onA.send("tool_approval_response", { approval_id: request.approval_id, decision: "allow_for_thread" });
      const first = (await onA.until((f) => f.type === "tool_call")) as Extract<
        ServerFrame,
        { type: "tool_call" }
      >;
      onA.send("tool_result", { tool_call_id: first.tool_call_id, ok: true, result: "one" });
      await onA.until(isDone);

      const onB = await client(b.url, alice);
      onB.send("client_tools_manifest", manifest);
      onB.send("chat_message", { content: "use the editor again", thread_id: threadId, ...editor });
      const second = (await onB.until((f) => f.type === "tool_call")) as Extract<
        ServerFrame,
        { type: "tool_call" }
      >;
      onB.send("tool_result", { tool_call_id: second.tool_call_id, ok: true, result: "two" });
      await onB.until(isDone);
      expect(onB.frames.some((f) => f.type === "tool_approval_request")).toBe(false);
      expect(onB.frames.some((f) => f.type === "error")).toBe(false);
      const rows = await messagesOf(b.url, threadId, alice.token);
      expect(rows.at(-1)).toMatchObject({ content: "the editor said two", status: "complete" });
    });
  },
);
