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
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ActiveTurn } from "../../src/turns/active-turn.js";
import { TurnRegistry } from "../../src/turns/turn-registry.js";

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
  return { threadId: t.id, turnId: (await repos.turns.start("u", t.id)).id, repos };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentwire-frame-log-"));
  database = openDatabase({ path: join(dir, "a.db") });
  scheduled = [];
});
afterEach(() => {
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("SqliteFrameLog", () => {
  it("stamps per-thread seqs into the JSON, and delivers only after the commit, in one batch", async () => {
    const { threadId, turnId } = await thread();
    const log = openLog();
    await log.claim(threadId);
    const { sub, got } = recorder();
    log.subscribe(threadId, sub);
    const first = log.append(threadId, turnId, chunk("a"));
    log.append(threadId, turnId, chunk("b"));
    expect(JSON.parse(first.json)).toEqual({ ...chunk("a"), thread_id: threadId, seq: 1 });
    expect(got).toEqual([]);
    expect(await log.readAfter(threadId, 0)).toEqual([]);
    commit();
    expect(got.map((f) => f.seq)).toEqual([1, 2]);
    expect((await log.readAfter(threadId, 1)).map((f) => f.seq)).toEqual([2]);
  });

  it("commits early, right after the appending callback, once the commit queued for the end of this event-loop turn is 10 ms overdue", async () => {
    const { threadId, turnId } = await thread();
    const log = openLog();
    await log.claim(threadId);
    const { sub, got } = recorder();
    log.subscribe(threadId, sub);
    const afterCallback = () => new Promise<void>((resolve) => queueMicrotask(resolve));
    // The clock of a poll phase that goes on: the queued commit (the test's schedule) never fires.
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      log.append(threadId, turnId, chunk("a"));
      expect(scheduled).toHaveLength(1);
      vi.advanceTimersByTime(9);
      log.append(threadId, turnId, chunk("b"));
      await afterCallback();
      expect(got).toEqual([]);
      vi.advanceTimersByTime(2);
      log.append(threadId, turnId, chunk("c"));
      // Not inside the append (a synchronous write may be under way there), but right after it.
      expect(got).toEqual([]);
      await afterCallback();
      expect(got.map((f) => [f.seq, JSON.parse(f.json).content])).toEqual([
        [1, "a"],
        [2, "b"],
        [3, "c"],
      ]);
      // The commit queued at the start still runs; it finds nothing, and the next append queues anew.
      commit();
      expect(got).toHaveLength(3);
      log.append(threadId, turnId, chunk("d"));
      expect(scheduled).toHaveLength(1);
      commit();
      expect(got.map((f) => f.seq)).toEqual([1, 2, 3, 4]);
      expect((await log.readAfter(threadId, 0)).map((f) => f.seq)).toEqual([1, 2, 3, 4]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("holds what is appended after hold until release; frames before the hold still go out", async () => {
    const { threadId, turnId } = await thread();
    const log = openLog();
    await log.claim(threadId);
    const { sub, got } = recorder();
    log.subscribe(threadId, sub);
    log.append(threadId, turnId, chunk("before"));
    log.hold(threadId);
    log.append(threadId, turnId, { type: "question", tool_call_id: "q1", question: "?" });
    commit();
    expect(got.map((f) => f.seq)).toEqual([1]);
    const rows = database.sqlite.prepare("SELECT last_seq FROM frame_batches").all() as {
      last_seq: number;
    }[];
    expect(rows.map((r) => r.last_seq)).toEqual([1]);
    log.release(threadId);
    commit();
    expect(got.map((f) => f.seq)).toEqual([1, 2]);
  });

  it("endSubscriptions: subscribers get what was appended before it, then nothing", async () => {
    const { threadId, turnId } = await thread();
    const log = openLog();
    await log.claim(threadId);
    const { sub, got } = recorder();
    log.subscribe(threadId, sub);
    log.append(threadId, turnId, chunk("last"));
    log.endSubscriptions(threadId);
    commit();
    log.append(threadId, turnId, chunk("after"));
    commit();
    expect(got.map((f) => f.seq)).toEqual([1]);
  });

  it("endSubscriptions before its frames commit drops only the ended turn's watchers, not one the next turn added meanwhile", async () => {
    const { threadId, turnId, repos } = await thread();
    const log = openLog();
    await log.claim(threadId);
    const old = recorder("old");
    log.subscribe(threadId, old.sub);
    log.append(threadId, turnId, chunk("last"));
    // The turn ends while its last frame is still uncommitted (Postgres: a commit in flight)...
    log.endSubscriptions(threadId);
    // ...and the next turn's socket starts watching before that commit lands.
    const next = recorder("next");
    const nextTurn = (await repos.turns.start("u", threadId)).id;
    await log.claim(threadId);
    log.subscribe(threadId, next.sub);
    commit();
    log.append(threadId, nextTurn, chunk("next turn"));
    commit();
    expect(old.got.map((f) => f.seq)).toEqual([1]);
    expect(next.got.map((f) => f.seq)).toEqual([1, 2]);
  });

  it("the idle sweep forgets ended, handed-off and outside-turn threads, never one whose turn still runs silently", async () => {
    let clock = 0;
    // The real sweep timer, every 20 ms; the log's clock is stepped by hand past the idle time.
    const log = openLog({ idleMs: 20, now: () => clock });
    const [ended, waiting, outside, running] = [
      await thread(),
      await thread(),
      await thread(),
      await thread(),
    ];
    for (const t of [ended, waiting, running]) await log.claim(t.threadId);
    await log.claim(outside.threadId, { turn: false });
    for (const t of [ended, waiting, outside, running]) log.append(t.threadId, t.turnId, chunk("x"));
    commit();
    log.endSubscriptions(ended.threadId);
    log.handOff(waiting.threadId);
    // An hour of silence: a long tool call of the running turn while nobody watches the thread.
    clock += 3_600_000;
    await until(
      () => [ended, waiting, outside].every((t) => log.lastSeq(t.threadId) === 0),
      "the idle threads to be swept",
    );
    expect(log.lastSeq(running.threadId)).toBe(1);
    // The running turn goes on appending where it was, on the next seq.
    expect(log.append(running.threadId, running.turnId, chunk("still here")).seq).toBe(2);
    commit();
    expect((await log.readAfter(running.threadId, 0)).map((f) => f.seq)).toEqual([1, 2]);
    log.close();
  });

  it("a restart continues after the last committed seq and replays from disk; a new turn prunes the old one", async () => {
    const { threadId, turnId, repos } = await thread();
    const log = openLog();
    await log.claim(threadId);
    for (const c of ["a", "b", "c"]) log.append(threadId, turnId, chunk(c));
    commit();
    log.append(threadId, turnId, chunk("lost in the crash"));
    const again = openLog({ maxRecentFrames: 2 });
    await again.claim(threadId);
    expect(again.lastSeq(threadId)).toBe(3);
    // When each was logged (epoch ms): restart recovery times an interrupted turn's calls by it.
    for (const f of await again.readTurn(threadId, turnId)) {
      expect(Math.abs((f.loggedAt ?? 0) - Date.now())).toBeLessThan(60_000);
    }
    expect((await again.readTurn(threadId, turnId)).map((f) => JSON.parse(f.json).content)).toEqual([
      "a",
      "b",
      "c",
    ]);
    const next = (await repos.turns.start("u", threadId)).id;
    again.append(threadId, next, chunk("d"));
    commit();
    expect((await again.readAfter(threadId, 0)).map((f) => f.seq)).toEqual([4]);
    expect(await again.readTurn(threadId, turnId)).toEqual([]);
  });

  it("a commit that fails for one thread does not stop the others, and reports that thread", async () => {
    const a = await thread();
    const b = await thread();
    const errors: string[] = [];
    const log = openLog({ onError: (_e: unknown, threadId: string) => errors.push(threadId) });
    await log.claim(a.threadId);
    await log.claim(b.threadId);
    const { sub, got } = recorder();
    log.subscribe(b.threadId, sub);
    log.append(a.threadId, a.turnId, chunk("x"));
    log.append(b.threadId, b.turnId, chunk("y"));
    await a.repos.threads.delete("u", a.threadId);
    commit();
    // After a failed transaction the log writes thread by thread, asynchronously.
    await log.flush();
    expect(errors).toEqual([a.threadId]);
    expect(got.map((f) => JSON.parse(f.json).content)).toEqual(["y"]);
  });

  it("stores a checkpoint in the commit of the frames before it, never before them, the latest winning", async () => {
    const { threadId, turnId, repos } = await thread();
    const stored = async () => (await repos.turns.get("u", turnId))?.checkpoint;
    const log = openLog();
    await log.claim(threadId);
    log.append(threadId, turnId, chunk("a"));
    log.checkpoint(threadId, turnId, JSON.stringify({ n: 1 }));
    expect(await stored()).toBeNull();
    commit();
    expect(await stored()).toEqual({ n: 1 });
    // Its frames held (a question not yet stored): the checkpoint waits with them.
    log.hold(threadId);
    log.append(threadId, turnId, chunk("b"));
    log.checkpoint(threadId, turnId, JSON.stringify({ n: 2 }));
    commit();
    expect(await stored()).toEqual({ n: 1 });
    // A newer one replaces it before either is written.
    log.checkpoint(threadId, turnId, JSON.stringify({ n: 3 }));
    log.release(threadId);
    commit();
    expect(await stored()).toEqual({ n: 3 });
    expect((await log.readAfter(threadId, 0)).map((f) => f.seq)).toEqual([1, 2]);
    // With every frame already out, a checkpoint is a commit of its own.
    log.checkpoint(threadId, turnId, JSON.stringify({ n: 4 }));
    expect(scheduled).toHaveLength(1);
    commit();
    expect(await stored()).toEqual({ n: 4 });
    // A crash before the commit loses the checkpoint with the frames: the stored one stays.
    log.append(threadId, turnId, chunk("c"));
    log.checkpoint(threadId, turnId, JSON.stringify({ n: 5 }));
    scheduled = [];
    expect(await stored()).toEqual({ n: 4 });
  });

  it("close commits what is pending, and appends afterwards throw", async () => {
    const { threadId, turnId } = await thread();
    const log = openLog();
    await log.claim(threadId);
    log.append(threadId, turnId, chunk("a"));
    log.close();
    expect(() => log.append(threadId, turnId, chunk("b"))).toThrow();
    expect((await openLog().readAfter(threadId, 0)).map((f) => f.seq)).toEqual([1]);
  });
});

describe("TurnRegistry", () => {
  it("refuses a second turn on a thread while one is active, running or waiting", () => {
    const log = openLog();
    const reg = new TurnRegistry();
    const t = reg.start(log, "th", "u1", "t1");
    expect(reg.start(log, "th", "u1", "t2")).toBeUndefined();
    if (t) t.status = "waiting_user";
    expect(reg.start(log, "th", "u1", "t2")).toBeUndefined();
    if (t) {
      t.status = "complete";
      reg.finish(t);
    }
    expect(reg.start(log, "th", "u1", "t2")).toBeDefined();
  });

  it("lets only the thread's owner watch", () => {
    const log = openLog();
    const t = new TurnRegistry().start(log, "th", "u1", "t1");
    expect(t?.watch({ id: "x", userId: "u2", send: () => {} })).toBe(false);
    expect(t?.watch({ id: "y", userId: "u1", send: () => {} })).toBe(true);
  });

  it("keeps an ended turn visible for a while, then forgets it", () => {
    let now = 0;
    const reg = new TurnRegistry({ keepEndedMs: 50, now: () => now });
    const t = reg.start(openLog(), "th", "u1", "t1");
    if (t) reg.finish(t);
    now = 50;
    expect(reg.get("th")).toBe(t);
    now = 51;
    expect(reg.get("th")).toBeUndefined();
  });

  it("forgets ended turns whose threads are never used again, as other turns start and end", () => {
    let now = 0;
    const reg = new TurnRegistry({ keepEndedMs: 50, now: () => now });
    const log = openLog();
    const turns = Array.from({ length: 100 }, (_, i) => reg.start(log, `th${i}`, "u1", `t${i}`));
    const end = (t: ActiveTurn | undefined) => {
      if (!t) return;
      t.status = "complete";
      reg.finish(t);
    };
    for (const [i, t] of turns.entries()) {
      now = i;
      end(t);
    }
    const running = reg.start(log, "live", "u1", "t-live");
    // Each end forgot those that ended more than 50 ms before it: th0..th48 are gone already.
    expect(reg.size).toBe(51 + 1);
    // At 120 the turns that ended before 70 are past keeping; the running turn is never forgotten.
    now = 120;
    const next = reg.start(log, "next", "u1", "t-next");
    expect(reg.size).toBe(30 + 2);
    expect(reg.get("th69")).toBeUndefined();
    expect(reg.get("th70")).toBe(turns[70]);
    expect(reg.get("live")).toBe(running);
    // A thread whose turn ended and then started again is kept as the new, running turn.
    const again = reg.start(log, "th99", "u1", "t-again");
    expect(again).toBeDefined();
    now = 1_000;
    end(next);
    expect(reg.size).toBe(3);
    expect(reg.get("th99")).toBe(again);
    expect(reg.get("live")).toBe(running);
    expect(reg.get("next")).toBe(next);
  });
});
