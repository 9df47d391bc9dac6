import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { ServerFrame, StoredMessage } from "@agentwire/protocol";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  postgresMissing,
  startPostgres,
  type TestPostgres,
} from "../../../packages/websocket/test/support/postgres-server.js";
import {
  redisMissing,
  startRedis,
  type TestRedis,
} from "../../../packages/websocket/test/support/redis-server.js";
import { skipMissingService } from "../../../packages/websocket/test/support/skip-missing-service.js";

/**
 * Two real server processes on one real Postgres and one real Redis: any instance serves any client of
 * any thread, commands reach the instance running the turn, and a dead instance's turn is ended by
 * the survivor within the lease.
 */
const skip = skipMissingService(redisMissing() ?? postgresMissing());
const root = join(import.meta.dirname, "../../..");
const main = join(root, "apps/server/src/main.ts");
const provider = join(import.meta.dirname, "fixtures/scripted-provider.ts");
const LEASE_MS = 600;
let redis: TestRedis | undefined;
let postgres: TestPostgres | undefined;
/** The database of the current test (both instances share it). */
let databaseUrl: string;
const children: ChildProcess[] = [];
const sockets: WebSocket[] = [];
let dir: string;

beforeAll(async () => {
  if (skip) return;
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
}, 60_000);
beforeEach(async () => {
  if (postgres) databaseUrl = await postgres.createDatabase();
});
afterAll(async () => {
  await Promise.all([redis?.stop(), postgres?.stop()]);
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.terminate();
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

type Instance = { proc: ChildProcess; url: string };

async function instance(name: string, extraEnv: Record<string, string> = {}): Promise<Instance> {
  const proc = spawn(process.execPath, ["--import", "tsx", "--conditions=@agentwire/source", main], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      DATABASE_URL: databaseUrl,
      DATABASE_PATH: join(dir, "unused.db"),
      AGENTWIRE_SCRIPTED_PROVIDER: provider,
      DEFAULT_PROVIDER: "scripted",
      REDIS_URL: redis!.url,
      INSTANCE_ID: name,
      TURN_LEASE_MS: String(LEASE_MS),
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

async function client(url: string) {
  const ws = new WebSocket(`${url.replace("http", "ws")}/ws`);
  sockets.push(ws);
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
  await new Promise((resolve) => ws.once("open", resolve));
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
const seqsOf = (frames: ServerFrame[]) =>
  frames.map((f) => (f as { seq?: number }).seq).filter((s) => s !== undefined);

async function messagesOf(url: string, threadId: string): Promise<StoredMessage[]> {
  const body = (await (await fetch(`${url}/api/threads/${threadId}/messages`)).json()) as {
    messages: StoredMessage[];
  };
  return body.messages;
}

describe.skipIf(skip)("two instances on one Postgres and one Redis", () => {
  it("a turn started on A is resumed on B: every frame once, in order, then live; stop via B stops it on A; busy via B", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-cluster-"));
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
    dir = mkdtempSync(join(tmpdir(), "agentwire-cluster-"));
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

  it("kill -9 of A mid-turn: B ends the turn as interrupted within the lease; its client gets the closing frames", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-cluster-"));
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
    await onB.until(isDone);
    // The lease lapses, then B's sweep (every half lease) ends it: well within a few leases.
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS * 4);
    expect(onB.frames.slice(0, onA.frames.length)).toEqual(onA.frames);
    const rows = await messagesOf(b.url, threadId);
    expect(rows.at(-1)).toMatchObject({ role: "assistant", content: "holding ", status: "interrupted" });
    const seqs = seqsOf(onB.frames.filter((f) => f.type !== "chat_resumed"));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  });

  it("SIGTERM of A with a drain timeout: the running turn finishes, and the client on B sees all of it", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-cluster-"));
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
});
