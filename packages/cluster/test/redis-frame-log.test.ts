import { RedisFrameLog } from "@agentwire-chat/cluster";
import type { FrameSubscriber, LoggedFrame, StoredCheckpoint } from "@agentwire-chat/storage";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { until } from "@agentwire-chat/testkit/until";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const skip = skipMissingService(redisMissing());
let server: TestRedis | undefined;
const connections: Redis[] = [];
const logs: RedisFrameLog[] = [];

beforeAll(async () => {
  if (!skip) server = await startRedis();
});
afterEach(async () => {
  for (const log of logs.splice(0)) log.close();
  await Promise.all(connections.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
});
afterAll(async () => {
  await server?.stop();
});

/** One "instance": its own command and reader connections, as two server processes would have. */
function instance(
  errors: unknown[] = [],
  storeCheckpoints?: (c: readonly StoredCheckpoint[]) => Promise<void>,
): RedisFrameLog {
  const redis = new Redis(server!.url);
  const reader = new Redis(server!.url);
  connections.push(redis, reader);
  const log = new RedisFrameLog(redis, reader, {
    onError: (e) => errors.push(e),
    ...(storeCheckpoints && { storeCheckpoints }),
  });
  logs.push(log);
  return log;
}

const recorder = (id = "s") => {
  const got: LoggedFrame[] = [];
  let wake: (() => void) | undefined;
  const sub: FrameSubscriber = {
    id,
    deliver: (frames) => {
      got.push(...frames);
      wake?.();
    },
  };
  /** Resolves once `n` frames arrived (no sleeps: woken by delivery). */
  const until = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (got.length >= n ? resolve() : undefined);
      wake = check;
      check();
    });
  return { sub, got, until };
};

const chunk = (content: string) => ({ type: "chunk" as const, content, parent_id: null, depth: 0 });
const seqs = (frames: LoggedFrame[]) => frames.map((f) => f.seq);
let threadNo = 0;
const newThread = () => `thread-${++threadNo}-${Date.now()}`;

describe.skipIf(skip)("RedisFrameLog", () => {
  it("counts a frame's bytes from append until its commit ends: Redis keeps none here for replay", async () => {
    const log = instance();
    const t = newThread();
    await log.claim(t);
    const a = log.append(t, "turn", chunk("a"));
    expect(log.memoryStats().bytes).toBe(a.json.length);
    await log.flush();
    expect(log.memoryStats().bytes).toBe(0);
  });

  it("the idle sweep leaves a thread whose turn runs here, however long it is silent", async () => {
    let clock = 0;
    const redis = new Redis(server!.url);
    const reader = new Redis(server!.url);
    connections.push(redis, reader);
    // The real sweep timer, every 20 ms; the log's clock is stepped by hand past the idle time.
    const log = new RedisFrameLog(redis, reader, { idleMs: 20, now: () => clock });
    logs.push(log);
    const [ended, waiting, outside, running] = [newThread(), newThread(), newThread(), newThread()];
    for (const t of [ended, waiting, running]) await log.claim(t);
    await log.claim(outside, { turn: false });
    for (const t of [ended, waiting, outside, running]) log.append(t, "turn", chunk("x"));
    await log.flush();
    log.endSubscriptions(ended);
    log.handOff(waiting);
    clock += 3_600_000;
    await until(
      () => [ended, waiting, outside].every((t) => log.lastSeq(t) === 0),
      "the idle threads to be swept",
    );
    expect(log.lastSeq(running)).toBe(1);
    expect(log.append(running, "turn", chunk("still here")).seq).toBe(2);
    await log.flush();
    expect((await log.readAfter(running, 0)).map((f) => f.seq)).toEqual([1, 2]);
  });

  it("delivers a frame only after Redis holds it, stamped, in order, and reads it back", async () => {
    const log = instance();
    const thread = newThread();
    await log.claim(thread);
    const { sub, got, until } = recorder();
    log.subscribe(thread, sub);
    const first = log.append(thread, "turn-1", chunk("a"));
    log.append(thread, "turn-1", chunk("b"));
    expect(got).toEqual([]);
    await until(2);
    expect(seqs(got)).toEqual([1, 2]);
    expect(JSON.parse(first.json)).toMatchObject({ type: "chunk", content: "a", thread_id: thread, seq: 1 });
    expect(seqs(await log.readAfter(thread, 1))).toEqual([2]);
    const turn = await log.readTurn(thread, "turn-1");
    expect(seqs(turn)).toEqual([1, 2]);
    // When each was logged (epoch ms): restart recovery times an interrupted turn's calls by it.
    for (const f of turn) expect(Math.abs((f.loggedAt ?? 0) - Date.now())).toBeLessThan(60_000);
  });

  it("a second instance resumes from any seq: the replay, then live frames, each once, ending with the turn", async () => {
    const a = instance();
    const b = instance();
    const thread = newThread();
    await a.claim(thread);
    for (const c of ["1", "2", "3"]) a.append(thread, "turn-1", chunk(c));
    await a.flush();
    const { sub, got, until } = recorder("watcher-on-b");
    const resumed = await b.resume(thread, 1, sub, true);
    expect(resumed).toEqual({ replayed: 2, lastSeq: 3 });
    a.append(thread, "turn-1", chunk("4"));
    a.append(thread, "turn-1", { type: "chunk", content: "", done: true, parent_id: null, depth: 0 });
    a.endSubscriptions(thread);
    await until(4);
    expect(seqs(got)).toEqual([2, 3, 4, 5]);
    // The turn ended: a later turn's frames do not reach the old follower.
    await a.claim(thread);
    a.append(thread, "turn-2", chunk("next"));
    await a.flush();
    const { sub: probe, until: probeUntil } = recorder("probe");
    await b.resume(thread, 5, probe, true);
    await probeUntil(1);
    expect(seqs(got)).toEqual([2, 3, 4, 5]);
  });

  it("a new turn trims the older turn's entries; a turn resumed on another instance keeps its own", async () => {
    const a = instance();
    const b = instance();
    const thread = newThread();
    await a.claim(thread);
    a.append(thread, "turn-1", chunk("old"));
    await a.flush();
    await a.claim(thread);
    a.append(thread, "turn-2", chunk("before the question"));
    await a.flush();
    // turn-2 continues on b (an answer landed there): its earlier frames stay.
    await b.claim(thread);
    b.append(thread, "turn-2", chunk("after the answer"));
    await b.flush();
    expect(seqs(await b.readAfter(thread, 0))).toEqual([2, 3]);
  });

  it("refuses a seq another instance already wrote (a stale owner cannot overwrite), and says so", async () => {
    const errors: unknown[] = [];
    const a = instance(errors);
    const b = instance();
    const thread = newThread();
    await a.claim(thread);
    await b.claim(thread);
    b.append(thread, "turn-1", chunk("from b"));
    await b.flush();
    const { sub, got } = recorder();
    a.subscribe(thread, sub);
    a.append(thread, "turn-1", chunk("stale a"));
    await a.flush();
    expect(got).toEqual([]);
    expect(String(errors[0])).toMatch(/equal or smaller/);
    expect((await a.readAfter(thread, 0)).map((f) => JSON.parse(f.json).content)).toEqual(["from b"]);
  });

  it("keeps a turn's checkpoint in Redis with the frames before it, then in the database once they are stored; the newest wins", async () => {
    const stored: { checkpoints: StoredCheckpoint[]; framesThen: number }[] = [];
    const log: RedisFrameLog = instance([], async (checkpoints) => {
      // What the stream held when the database got them: never less than the frames before them.
      stored.push({ checkpoints: [...checkpoints], framesThen: (await log.readAfter(thread, 0)).length });
    });
    const thread = newThread();
    await log.claim(thread);
    log.append(thread, "turn-1", chunk("a"));
    log.checkpoint(thread, "turn-1", '{"step":1}');
    log.append(thread, "turn-1", chunk("b"));
    log.checkpoint(thread, "turn-1", '{"step":2}');
    await log.flush();
    await log.checkpointsStored();
    // One commit took both: the newer replaced the older before it was stored.
    expect(stored).toEqual([
      { checkpoints: [{ threadId: thread, turnId: "turn-1", json: '{"step":2}' }], framesThen: 2 },
    ]);
    expect(await log.readCheckpoint("turn-1")).toEqual({ step: 2 });
    log.append(thread, "turn-1", chunk("c"));
    log.checkpoint(thread, "turn-1", '{"step":3}');
    await log.flush();
    await log.checkpointsStored();
    expect(stored.at(-1)).toEqual({
      checkpoints: [{ threadId: thread, turnId: "turn-1", json: '{"step":3}' }],
      framesThen: 3,
    });
    expect(await log.readCheckpoint("turn-1")).toEqual({ step: 3 });
    expect(await log.readCheckpoint("turn-2")).toBeUndefined();
  });

  it("drops the checkpoint of frames Redis refused (a stale owner), and keeps none without a database to store it", async () => {
    const stored: StoredCheckpoint[] = [];
    const a = instance([], async (c) => {
      stored.push(...c);
    });
    const b = instance();
    const thread = newThread();
    await a.claim(thread);
    await b.claim(thread);
    b.append(thread, "turn-1", chunk("from b"));
    await b.flush();
    a.append(thread, "turn-1", chunk("stale a"));
    a.checkpoint(thread, "turn-1", '{"stale":true}');
    await a.flush();
    await a.checkpointsStored();
    expect(stored).toEqual([]);
    // Its Redis copy, written in the same round trip, is taken back.
    await until(async () => (await a.readCheckpoint("turn-1")) === undefined || false, "the stale copy gone");
    // b keeps no checkpoints (no storeCheckpoints): a crash of its turn ends it interrupted.
    b.append(thread, "turn-1", chunk("more from b"));
    b.checkpoint(thread, "turn-1", '{"b":true}');
    await b.flush();
    expect(await b.readCheckpoint("turn-1")).toBeUndefined();
  });

  it("waits for the checkpoints handed to the database before the wait, not for the ones that keep coming after; a flush waits for neither", async () => {
    const batches: string[][] = [];
    const gates: (() => void)[] = [];
    // Each store waits on a gate of its own, released by the test: the database is as slow as we say.
    const log = instance([], (c) => {
      batches.push(c.map((x) => x.turnId));
      return new Promise<void>((resolve) => gates.push(resolve));
    });
    const thread = newThread();
    await log.claim(thread);
    log.append(thread, "turn-1", chunk("one"));
    log.checkpoint(thread, "turn-1", '{"step":1}');
    // Frames and the Redis copy committed; the database's copy is still on its way.
    await log.flush();
    expect(await log.readCheckpoint("turn-1")).toEqual({ step: 1 });
    let firstDone = false;
    const first = log.checkpointsStored().then(() => {
      firstDone = true;
    });
    await until(() => batches.length === 1, "the first checkpoint handed to the database");
    // A second checkpoint while the first is being stored: a store loop that runs on would hold `first`.
    log.append(thread, "turn-2", chunk("two"));
    log.checkpoint(thread, "turn-2", '{"step":2}');
    await log.flush();
    let secondDone = false;
    const second = log.checkpointsStored().then(() => {
      secondDone = true;
    });
    expect(firstDone).toBe(false);
    gates[0]?.();
    await first;
    await until(() => batches.length === 2, "the second checkpoint handed to the database");
    expect(batches).toEqual([["turn-1"], ["turn-2"]]);
    expect(secondDone).toBe(false);
    gates[1]?.();
    await second;
  });

  it("holds frames until release", async () => {
    const log = instance();
    const thread = newThread();
    await log.claim(thread);
    const { sub, got, until } = recorder();
    log.subscribe(thread, sub);
    log.append(thread, "t", chunk("before"));
    log.hold(thread);
    log.append(thread, "t", chunk("question"));
    await log.flush();
    expect(seqs(got)).toEqual([1]);
    log.release(thread);
    await until(2);
    expect(seqs(got)).toEqual([1, 2]);
  });
});
