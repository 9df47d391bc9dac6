import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { scriptedProviderModule } from "@agentwire-chat/testkit/fixtures";
import { afterEach, describe, expect, it } from "vitest";
import { isDone, messagesOf, seqsOf, useCluster } from "./support/cluster-instances.js";
import { expectWriteThenAnswerContinued } from "./support/expect-continued-turn.js";

/**
 * Two real server processes on one real Postgres and one real Redis: any instance serves any client of
 * any thread, commands reach the instance running the turn, and a dead instance's turn is taken over by
 * the survivor within the lease: continued from its last checkpoint, or ended when it has none; a
 * SIGTERM past the drain hands a running turn over at once (a rolling deploy).
 */
const LEASE_MS = 600;
const HANDOVER_LEASE_MS = 10_000;
const { skip, instance, client, databaseUrl } = useCluster({
  provider: scriptedProviderModule,
  leaseMs: LEASE_MS,
});

let workspaces: string[] = [];
afterEach(() => {
  for (const w of workspaces) rmSync(w, { recursive: true, force: true });
  workspaces = [];
});

// Each test spawns real server processes that load the sources through tsx: on a busy machine (a fresh
// container compiling them for the first time) that alone takes seconds, past the default 20 s.
describe.skipIf(skip)("two instances on one Postgres and one Redis", { timeout: 60_000 }, () => {
  it("a turn started on A is resumed on B: every frame once, in order, then live; stop via B stops it on A; busy via B", async () => {
    const a = await instance("a");
    const b = await instance("b");
    const onA = await client(a.url);
    onA.send("chat_message", { content: "hold on" });
    await onA.until((f) => f.type === "chunk" && f.content === "holding ");
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
    onA.ws.terminate();

    const onB = await client(b.url);
    onB.send("resume_chat", { thread_id: threadId, last_seq: 0 });
    const resumed = await onB.until((f) => f.type === "chat_resumed");
    expect(resumed).toMatchObject({ status: "running", replayed: onA.frames.length });
    expect(onB.frames.slice(0, onA.frames.length)).toEqual(onA.frames);

    onB.send("chat_message", { content: "another", thread_id: threadId }, "second");
    expect(await onB.until((f) => f.type === "error")).toMatchObject({ code: "busy", request_id: "second" });

    onB.send("stop", { thread_id: threadId });
    await onB.until(isDone);
    const replayedAndLive = onB.frames.filter((f) => f.type !== "chat_resumed" && f.type !== "error");
    const seqs = seqsOf(replayedAndLive);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(onB.frames.some((f) => f.type === "generation_stopped")).toBe(true);
    const rows = await messagesOf(b.url, threadId);
    expect(rows.at(-1)).toMatchObject({ role: "assistant", content: "holding ", status: "stopped" });

    // Each instance reports both dependencies, and gauges their connections.
    const ready = await fetch(`${b.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } });
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).toMatch(/^agentwire_db_pool_connections\{state="total"\} [1-9]/m);
    expect(metrics).toMatch(/^agentwire_db_pool_connections\{state="waiting"\} 0/m);
    for (const connection of ["commands", "reader", "bus"])
      expect(metrics).toContain(`agentwire_redis_connected{connection="${connection}"} 1`);
  });

  it("a question shown via A is answered via B, and the turn resumes there", async () => {
    const a = await instance("a");
    const b = await instance("b");
    const onA = await client(a.url);
    onA.send("chat_message", { content: "ask me" });
    const question = await onA.until((f) => f.type === "question");
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
    const onB = await client(b.url);
    onB.send("answer", {
      thread_id: threadId,
      tool_call_id: (question as { tool_call_id: string }).tool_call_id,
      answer: "teal",
    });
    await onB.until(isDone);
    const rows = await messagesOf(a.url, threadId);
    expect(rows.at(-1)).toMatchObject({ role: "assistant", content: "you chose teal", status: "complete" });
    // The client still on A follows the continuation that ran on B.
    await onA.until(isDone);
    expect(seqsOf(onA.frames)).toEqual(Array.from({ length: seqsOf(onA.frames).length }, (_, i) => i + 1));
  });

  it("kill -9 of A in its first model call (no checkpoint yet): B runs the turn again from its message within the lease; the cut text is kept", async () => {
    const a = await instance("a");
    const b = await instance("b");
    const onA = await client(a.url);
    onA.send("chat_message", { content: "hold on" });
    await onA.until((f) => f.type === "chunk" && f.content === "holding ");
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
    const onB = await client(b.url);
    onB.send("resume_chat", { thread_id: threadId, last_seq: 0 });
    await onB.until((f) => f.type === "chat_resumed");
    const killedAt = Date.now();
    a.proc.kill("SIGKILL");
    await onB.until((f) => f.type === "agent_state" && f.state === "resumed");
    // The lease lapses, then B's sweep (every quarter lease) takes the turn: well within a few leases.
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS * 4);
    // The rerun holds as the first attempt did (this provider holds until stopped): stop it via B.
    const cutAt = Math.max(...seqsOf(onA.frames));
    await onB.until(
      (f) => f.type === "chunk" && f.content === "holding " && (f as { seq: number }).seq > cutAt,
    );
    onB.send("stop", { thread_id: threadId });
    await onB.until(isDone);
    expect(onB.frames.slice(0, onA.frames.length)).toEqual(onA.frames);
    const rows = await messagesOf(b.url, threadId);
    expect(rows.map((r) => [r.role, r.content, r.status])).toEqual([
      ["user", "hold on", "complete"],
      ["assistant", "holding ", "interrupted"],
      ["assistant", "holding ", "stopped"],
    ]);
    const seqs = seqsOf(onB.frames.filter((f) => f.type !== "chat_resumed"));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  });

  it("kill -9 of A in its second model call, after a completed tool call: B continues the turn within the lease; a client on B sees one continuous turn complete; the tool did not run again", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "agentwire-cluster-ws-"));
    workspaces.push(workspace);
    const a = await instance("a", { WORKSPACE_ROOT: workspace });
    const b = await instance("b", { WORKSPACE_ROOT: workspace });
    const onA = await client(a.url);
    onA.send("chat_message", { content: "write then answer" });
    await onA.until((f) => f.type === "chunk" && f.content === "an answer");
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
    // The write is done; changed behind the agent's back, it would be overwritten if the tool ran again.
    const note = join(workspace, "local", "notes", "step.txt");
    expect(readFileSync(note, "utf8")).toBe("step one");
    writeFileSync(note, "changed after the tool ran");

    const onB = await client(b.url);
    onB.send("resume_chat", { thread_id: threadId, last_seq: 0 });
    await onB.until((f) => f.type === "chat_resumed");
    const killedAt = Date.now();
    a.proc.kill("SIGKILL");
    await onB.until((f) => f.type === "agent_state" && f.state === "resumed");
    // The lease lapses within one lease of the kill, B's sweep (every quarter lease) continues the turn.
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS * 4);
    await onB.until(isDone);

    // Every frame once, in order: what A sent, then the continuation B ran, on the same seqs.
    expect(onB.frames.slice(0, onA.frames.length)).toEqual(onA.frames);
    const logged = onB.frames.filter((f) => f.type !== "chat_resumed");
    const seqs = seqsOf(logged);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(logged.filter(isDone)).toHaveLength(1);
    const continued = onB.frames.slice(onB.frames.findIndex((f) => f.type === "chat_resumed") + 1);
    // The completed tool call is not run again: no call of it in the continuation, the file as changed.
    await expectWriteThenAnswerContinued(continued, {
      url: b.url,
      databaseUrl: databaseUrl(),
      threadId,
      note,
      recoveries: 1,
    });
    // Replayed from 0 on B, the turn is one continuous turn that finished.
    const again = await client(b.url);
    again.send("resume_chat", { thread_id: threadId, last_seq: 0 });
    const resumed = await again.until((f) => f.type === "chat_resumed");
    expect(resumed).toMatchObject({ status: "finished" });
    expect(again.frames.filter((f: ServerFrame) => f.type !== "chat_resumed")).toEqual(logged);
  });

  it("TURN_RECOVERY=interrupt: the same kill ends the turn on B as interrupted, with the text A streamed", async () => {
    const env = { TURN_RECOVERY: "interrupt" };
    const a = await instance("a", env);
    const b = await instance("b", env);
    const onA = await client(a.url);
    onA.send("chat_message", { content: "write then answer" });
    await onA.until((f) => f.type === "chunk" && f.content === "an answer");
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
    const onB = await client(b.url);
    onB.send("resume_chat", { thread_id: threadId, last_seq: 0 });
    await onB.until((f) => f.type === "chat_resumed");
    a.proc.kill("SIGKILL");
    await onB.until(isDone);
    expect(onB.frames.some((f) => f.type === "agent_state" && f.state === "resumed")).toBe(false);
    const rows = await messagesOf(b.url, threadId);
    expect(rows.at(-1)).toMatchObject({
      role: "assistant",
      content: "Half an answer",
      status: "interrupted",
    });
  });

  it("SIGTERM of A with a drain timeout: the running turn finishes, and the client on B sees all of it", async () => {
    const a = await instance("a", { SHUTDOWN_DRAIN_MS: "10000" });
    const b = await instance("b");
    const onA = await client(a.url);
    onA.send("chat_message", { content: "take your time" });
    await onA.until((f) => f.type === "chunk" && f.content === "slow answer");
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
    const onB = await client(b.url);
    onB.send("resume_chat", { thread_id: threadId, last_seq: 0 });
    await onB.until((f) => f.type === "chat_resumed");
    const exited = new Promise<number | null>((resolve) => a.proc.once("exit", resolve));
    a.proc.kill("SIGTERM");
    await onB.until(isDone);
    expect(await exited).toBe(0);
    const rows = await messagesOf(b.url, threadId);
    expect(rows.at(-1)).toMatchObject({ role: "assistant", content: "slow answer", status: "complete" });
  });

  it("SIGTERM of A past the drain hands its turn (second model call, after a tool call) over: B continues it well within a long lease, though its TURN_MAX_RECOVERIES is 0 (a handover is not a crash's recovery); the client closed with 1012 resumes on B and sees one continuous turn complete; the tool did not run again; A exits 0", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "agentwire-handover-ws-"));
    workspaces.push(workspace);
    // A long lease: a continuation well within it can only come from the handover, not from its lapse.
    const lease = { TURN_LEASE_MS: String(HANDOVER_LEASE_MS), WORKSPACE_ROOT: workspace };
    const a = await instance("a", { ...lease, SHUTDOWN_DRAIN_MS: "300" });
    // B continues no crashed turn at all; a handed-over one it still does.
    const b = await instance("b", { ...lease, TURN_MAX_RECOVERIES: "0" });
    const onA = await client(a.url);
    onA.send("chat_message", { content: "write then answer" });
    await onA.until((f) => f.type === "chunk" && f.content === "an answer");
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
    // The write is done; changed behind the agent's back, it would be overwritten if the tool ran again.
    const note = join(workspace, "local", "notes", "step.txt");
    expect(readFileSync(note, "utf8")).toBe("step one");
    writeFileSync(note, "changed after the tool ran");

    const closed = new Promise<number>((resolve) => onA.ws.once("close", (code) => resolve(code)));
    const exited = new Promise<number | null>((resolve) => a.proc.once("exit", resolve));
    const termAt = Date.now();
    a.proc.kill("SIGTERM");
    expect(await closed).toBe(1012);

    // The client reconnects elsewhere and resumes from the last frame it applied.
    const onB = await client(b.url);
    onB.send("resume_chat", { thread_id: threadId, last_seq: seqsOf(onA.frames).at(-1) });
    await onB.until((f) => f.type === "agent_state" && f.state === "resumed");
    // The drain, the handover and B's takeover: a fraction of the lease (its lapse alone would take 10 s).
    expect(Date.now() - termAt).toBeLessThan(HANDOVER_LEASE_MS / 4);
    await onB.until(isDone);
    expect(await exited).toBe(0);

    // Every frame once, in order: what A sent, then the continuation B ran, on the same seqs.
    const continued = onB.frames.filter((f) => f.type !== "chat_resumed");
    const seen = [...onA.frames, ...continued];
    const seqs = seqsOf(seen);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(seen.filter(isDone)).toHaveLength(1);
    // A stopped the second model call and said nothing more (no end, no error); B went on from the tool's step.
    await expectWriteThenAnswerContinued(continued, {
      url: b.url,
      databaseUrl: databaseUrl(),
      threadId,
      note,
      // A handover is no crash: not counted, and not bounded by B's TURN_MAX_RECOVERIES of 0.
      recoveries: 0,
    });
    // Replayed from 0 on B, the turn is the same continuous one.
    const again = await client(b.url);
    again.send("resume_chat", { thread_id: threadId, last_seq: 0 });
    expect(await again.until((f) => f.type === "chat_resumed")).toMatchObject({ status: "finished" });
    expect(again.frames.filter((f: ServerFrame) => f.type !== "chat_resumed")).toEqual(seen);
  });
});
