import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FrameSubscriber, LoggedFrame } from "@agentwire-chat/storage";
import {
  type AgentwireDatabase,
  createSqliteRepositories,
  openDatabase,
  SqliteFrameLog,
} from "@agentwire-chat/storage/sqlite";
import { until } from "@agentwire-chat/testkit/until";
import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { registerFrameLogMetrics } from "../../src/index.js";

// The byte bound's accounting, commit by commit (commits stepped by hand), on SQLite.
let dir: string;
let database: AgentwireDatabase;
let scheduled: (() => void)[];
const chunk = (content: string) => ({ type: "chunk", content, parent_id: null, depth: 0 }) as const;
const commit = () => {
  const run = scheduled;
  scheduled = [];
  for (const c of run) c();
};
const openLog = (options = {}) =>
  new SqliteFrameLog(database.sqlite, { schedule: (c) => scheduled.push(c), ...options });
const recorder = (id = "c1") => {
  const got: LoggedFrame[] = [];
  const sub: FrameSubscriber = { id, deliver: (frames) => got.push(...frames) };
  return { sub, got };
};

async function thread() {
  const repos = createSqliteRepositories(database.db);
  await repos.users.ensure("u");
  const t = await repos.threads.create("u", "t");
  return { threadId: t.id, turnId: (await repos.turns.start("u", t.id)).id };
}

/** One whole turn on a new thread: claimed, `frames` chunks, committed, ended. Returns its frames' bytes. */
async function turnOn(log: SqliteFrameLog, frames: number, text = "x".repeat(100)) {
  const t = await thread();
  await log.claim(t.threadId);
  let bytes = 0;
  for (let i = 0; i < frames; i++) bytes += log.append(t.threadId, t.turnId, chunk(text)).json.length;
  log.endSubscriptions(t.threadId);
  commit();
  return { ...t, bytes };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentwire-frame-log-memory-"));
  database = openDatabase({ path: join(dir, "a.db") });
  scheduled = [];
});
afterEach(() => {
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the frame log's byte bound", () => {
  it("counts each frame's JSON once at append, and gives it back when an older turn's frames are let go", async () => {
    const log = openLog();
    const { threadId, turnId } = await thread();
    await log.claim(threadId);
    const a = log.append(threadId, turnId, chunk("a"));
    expect(log.memoryStats().bytes).toBe(a.json.length);
    const b = log.append(threadId, turnId, chunk("bb"));
    expect(log.memoryStats().bytes).toBe(a.json.length + b.json.length);
    // Committed, they stay for replay: still held.
    commit();
    expect(log.memoryStats().bytes).toBe(a.json.length + b.json.length);
    expect(log.retained(threadId).bytes).toBe(log.memoryStats().bytes);
    // A new turn on the thread replaces the older turn's frames in memory.
    const repos = createSqliteRepositories(database.db);
    const next = (await repos.turns.start("u", threadId)).id;
    const c = log.append(threadId, next, chunk("c"));
    commit();
    expect(log.memoryStats().bytes).toBe(c.json.length);
    log.close();
  });

  it("over the bound, forgets the least recently used idle thread first; a replay reads it back from the store", async () => {
    const log = openLog({ maxMemoryBytes: 10_000 });
    const a = await turnOn(log, 20);
    const b = await turnOn(log, 20);
    expect(log.memoryStats()).toMatchObject({ bytes: a.bytes + b.bytes, evictions: 0 });
    // Using `a` (a replay) makes `b` the least recently used.
    await log.readAfter(a.threadId, 0);
    const c = await turnOn(log, 20);
    expect(a.bytes + b.bytes + c.bytes).toBeGreaterThan(10_000);
    expect(log.memoryStats()).toMatchObject({ bytes: a.bytes + c.bytes, evictions: 1 });
    expect(log.retained(b.threadId).frames).toBe(0);
    expect(log.retained(a.threadId).frames).toBe(20);
    // Forgotten from memory, not from the store: every frame of its turn comes back.
    const replay = await log.readAfter(b.threadId, 0);
    expect(replay.map((f) => f.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const { sub, got } = recorder();
    await log.resume(b.threadId, 0, sub, false);
    expect(got.map((f) => f.json)).toEqual(replay.map((f) => f.json));
    log.close();
  });

  it("never forgets a running turn's thread, a subscribed one, or frames not yet committed", async () => {
    const log = openLog({ maxMemoryBytes: 5_000 });
    // A socket watches an ended thread (resume_chat): it must hear that thread's next turn.
    const watched = await turnOn(log, 1);
    const { sub } = recorder();
    await log.resume(watched.threadId, 0, sub, true);
    const running = await thread();
    await log.claim(running.threadId);
    for (let i = 0; i < 60; i++) log.append(running.threadId, running.turnId, chunk("r".repeat(100)));
    // Far over the bound with frames pending: nothing is evicted before the commit.
    expect(log.memoryStats().bytes).toBeGreaterThan(5_000);
    const idle = await turnOn(log, 5);
    // The commit that stored the running turn's frames ended: only the idle thread could go.
    expect(log.memoryStats().evictions).toBe(1);
    expect(log.retained(idle.threadId).frames).toBe(0);
    expect(log.retained(running.threadId).frames).toBe(60);
    expect(log.retained(watched.threadId).frames).toBe(1);
    // Appends go on; the running turn stays claimed and delivers.
    log.append(running.threadId, running.turnId, chunk("more"));
    commit();
    expect(log.retained(running.threadId).frames).toBe(61);
    // Ended, it is idle and the least recently used idle thread goes first: the watched one is
    // unsubscribed after it.
    log.endSubscriptions(running.threadId);
    log.unsubscribe(watched.threadId, sub.id);
    const after = await turnOn(log, 1);
    expect(log.retained(running.threadId).frames).toBe(0);
    expect(log.memoryStats().bytes).toBeLessThanOrEqual(5_000);
    expect(log.retained(after.threadId).frames).toBe(1);
    log.close();
  });

  it("the metrics report the bytes held, the bound and the evictions", async () => {
    const log = openLog({ maxMemoryBytes: 100_000 });
    await turnOn(log, 3);
    const registry = new Registry();
    registerFrameLogMetrics(registry, () => log.memoryStats());
    const text = await registry.metrics();
    expect(text).toContain(`agentwire_frame_log_memory_bytes ${log.memoryStats().bytes}`);
    expect(text).toContain("agentwire_frame_log_memory_max_bytes 100000");
    expect(text).toContain("agentwire_frame_log_evictions_total 0");
    log.close();
  });

  it("the idle sweep gives the swept threads' bytes back", async () => {
    let clock = 0;
    const log = openLog({ idleMs: 20, now: () => clock });
    const t = await turnOn(log, 3);
    expect(log.memoryStats().bytes).toBe(t.bytes);
    clock = 1_000;
    await until(() => log.retained(t.threadId).frames === 0, "the idle thread to be swept");
    expect(log.memoryStats()).toMatchObject({ bytes: 0, evictions: 0 });
    log.close();
  });
});
