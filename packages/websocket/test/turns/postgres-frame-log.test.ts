import type { FrameSubscriber, LoggedFrame } from "@agentwire-chat/storage";
import { gated } from "@agentwire-chat/storage";
import {
  type AgentwirePostgres,
  createPgRepositories,
  openPostgres,
  PostgresFrameLog,
} from "@agentwire-chat/storage/postgres";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentwire-chat/testkit/postgres-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import type pgTypes from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

const skip = skipMissingService(postgresMissing());
let server: TestPostgres | undefined;
let pg: AgentwirePostgres;
let scheduled: (() => void)[];
const chunk = (content: string) => ({ type: "chunk", content, parent_id: null, depth: 0 }) as const;
/** Runs the scheduled commits and waits for them (each is asynchronous on Postgres). */
const commit = async (log: PostgresFrameLog) => {
  const run = scheduled;
  scheduled = [];
  for (const c of run) c();
  await log.flush();
};
const openLog = (options = {}) =>
  new PostgresFrameLog(pg.pool, { schedule: (c) => scheduled.push(c), ...options });
const recorder = (id = "c1") => {
  const got: LoggedFrame[] = [];
  const sub: FrameSubscriber = { id, deliver: (frames) => got.push(...frames) };
  return { sub, got };
};

async function thread() {
  const repos = createPgRepositories(pg.db);
  await repos.users.ensure("u");
  const t = await repos.threads.create("u", "t");
  return { threadId: t.id, turnId: (await repos.turns.start("u", t.id)).id, repos };
}

beforeAll(async () => {
  if (skip) return;
  server = await startPostgres();
  pg = await openPostgres({ url: await server.createDatabase() });
}, 60_000);
afterAll(async () => {
  await pg?.close();
  await server?.stop();
});
beforeEach(() => {
  scheduled = [];
});

describe.skipIf(skip)("PostgresFrameLog", () => {
  it("stores a checkpoint on the turn in the transaction of the frames before it, never ahead of them", async () => {
    const { threadId, turnId, repos } = await thread();
    const stored = async () => (await repos.turns.get("u", turnId))?.checkpoint;
    const log = openLog();
    await log.claim(threadId);
    log.append(threadId, turnId, chunk("a"));
    log.checkpoint(threadId, turnId, JSON.stringify({ n: 1 }));
    expect(await stored()).toBeNull();
    await commit(log);
    expect(await stored()).toEqual({ n: 1 });
    log.hold(threadId);
    log.append(threadId, turnId, chunk("b"));
    log.checkpoint(threadId, turnId, JSON.stringify({ n: 2 }));
    await commit(log);
    expect(await stored()).toEqual({ n: 1 });
    log.release(threadId);
    await commit(log);
    expect(await stored()).toEqual({ n: 2 });
    log.close();
  });

  it("stamps seqs, delivers only after the transaction committed, and a new log reads them back from the table", async () => {
    const { threadId, turnId } = await thread();
    const log = openLog();
    await log.claim(threadId);
    const { sub, got } = recorder();
    log.subscribe(threadId, sub);
    const first = log.append(threadId, turnId, chunk("a"));
    log.append(threadId, turnId, chunk("b"));
    expect(JSON.parse(first.json)).toEqual({ ...chunk("a"), thread_id: threadId, seq: 1 });
    expect(got).toEqual([]);
    await commit(log);
    expect(got.map((f) => f.seq)).toEqual([1, 2]);
    log.close();

    // A restarted instance: nothing in memory, the seq goes on after the stored frames.
    const again = openLog();
    expect((await again.readAfter(threadId, 1)).map((f) => JSON.parse(f.json).content)).toEqual(["b"]);
    const turn = await again.readTurn(threadId, turnId);
    expect(turn.map((f) => f.seq)).toEqual([1, 2]);
    // When each was logged (epoch ms): restart recovery times an interrupted turn's calls by it.
    for (const f of turn) expect(Math.abs((f.loggedAt ?? 0) - Date.now())).toBeLessThan(60_000);
    await again.claim(threadId);
    expect(again.append(threadId, turnId, chunk("c")).seq).toBe(3);
    await commit(again);
    again.close();
  });

  it("resume from the table: frames committed while the replay is read come after it, each once", async () => {
    const { threadId, turnId } = await thread();
    const writer = openLog();
    await writer.claim(threadId);
    for (const c of ["a", "b", "c"]) writer.append(threadId, turnId, chunk(c));
    await commit(writer);
    writer.close();

    const log = openLog({ maxRecentFrames: 1 });
    await log.claim(threadId);
    const { sub, got } = recorder();
    // The replay comes from the table (memory holds nothing yet); a live commit lands meanwhile.
    const resumed = log.resume(threadId, 0, sub, true);
    log.append(threadId, turnId, chunk("d"));
    await commit(log);
    expect(await resumed).toEqual({ replayed: 3, lastSeq: expect.any(Number) });
    await commit(log);
    expect(got.map((f) => f.seq)).toEqual([1, 2, 3, 4]);
    log.close();
  });

  it("a commit the database refuses is reported for its thread and never delivered; other threads go out", async () => {
    const good = await thread();
    const errors: string[] = [];
    const log = openLog({ onError: (_e: unknown, threadId: string) => errors.push(threadId) });
    await log.claim(good.threadId);
    await log.claim("no-such-thread");
    const { sub: goodSub, got: goodGot } = recorder("g");
    const { sub: badSub, got: badGot } = recorder("b");
    log.subscribe(good.threadId, goodSub);
    log.subscribe("no-such-thread", badSub);
    log.append(good.threadId, good.turnId, chunk("ok"));
    log.append("no-such-thread", "no-such-turn", chunk("lost"));
    await commit(log);
    expect(goodGot.map((f) => JSON.parse(f.json).content)).toEqual(["ok"]);
    expect(badGot).toEqual([]);
    expect(errors).toEqual(["no-such-thread"]);
    log.close();
  });

  it("a new turn's first commit removes the older turn's stored frames; seqs go on", async () => {
    const { threadId, turnId, repos } = await thread();
    const log = openLog();
    await log.claim(threadId);
    log.append(threadId, turnId, chunk("old"));
    await commit(log);
    const next = (await repos.turns.start("u", threadId)).id;
    log.append(threadId, next, chunk("new"));
    await commit(log);
    const stored = await pg.pool.query("SELECT turn_id, first_seq FROM frame_batches WHERE thread_id = $1", [
      threadId,
    ]);
    // first_seq is a bigint, which pg returns as text.
    expect(stored.rows).toEqual([{ turn_id: next, first_seq: "2" }]);
    log.close();
  });
});

describe.skipIf(skip)("PostgresFrameLog under failures and load", () => {
  it("a commit lost to a dropped connection is retried after a backoff: delivered once, in order, nothing lost", async () => {
    const { threadId, turnId } = await thread();
    // The whole commit fails, then its thread's own retry: the frames wait for the backoff.
    let failures = 2;
    // The network edge: the next connection attempts fail as a dropped socket does (no SQLSTATE).
    const flaky = {
      query: pg.pool.query.bind(pg.pool),
      connect: () =>
        failures-- > 0 ? Promise.reject(new Error("Connection terminated unexpectedly")) : pg.pool.connect(),
    } as unknown as pgTypes.Pool;
    const retried: string[] = [];
    const errors: string[] = [];
    const log = new PostgresFrameLog(flaky, {
      onRetry: (_e, id) => retried.push(id),
      onError: (_e, id) => errors.push(id),
    });
    await log.claim(threadId);
    const { sub, got } = recorder();
    log.subscribe(threadId, sub);
    log.append(threadId, turnId, chunk("a"));
    log.append(threadId, turnId, chunk("b"));
    await vi.waitFor(() => expect(got.map((f) => f.seq)).toEqual([1, 2]), { timeout: 5_000 });
    expect(retried).toEqual([threadId]);
    expect(errors).toEqual([]);
    expect((await log.readTurn(threadId, turnId)).map((f) => f.seq)).toEqual([1, 2]);
    log.close();
  });

  it("flush resolves while frames keep coming: it waits for what was appended before it, not for a quiet log", async () => {
    const { threadId, turnId } = await thread();
    const log = new PostgresFrameLog(pg.pool);
    await log.claim(threadId);
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        log.append(threadId, turnId, chunk("x"));
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 50; i++) log.append(threadId, turnId, chunk("x"));
    const before = log.lastSeq(threadId);
    await log.flush();
    const stored = await log.readTurn(threadId, turnId);
    streaming = false;
    await stream;
    expect(stored.length).toBeGreaterThanOrEqual(before);
    await log.flush();
    log.close();
  });

  it("one commit holding an older turn's last frames and a new turn's first keeps only the new turn's", async () => {
    const { threadId, turnId, repos } = await thread();
    const log = openLog();
    await log.claim(threadId);
    log.append(threadId, turnId, chunk("old"));
    const next = (await repos.turns.start("u", threadId)).id;
    log.append(threadId, next, chunk("new"));
    await commit(log);
    expect((await openLog().readAfter(threadId, 0)).map((f) => f.seq)).toEqual([2]);
    log.close();
  });
});

describe("gated", () => {
  it("holds live frames until the replay is delivered, then passes each seq once, in order", () => {
    const { sub, got } = recorder();
    const gate = gated(sub, 0);
    gate.deliver([{ seq: 3, json: "c" }]);
    expect(got).toEqual([]);
    gate.open([
      { seq: 1, json: "a" },
      { seq: 2, json: "b" },
      { seq: 3, json: "c" },
    ]);
    gate.deliver([
      { seq: 3, json: "c" },
      { seq: 4, json: "d" },
    ]);
    expect(got.map((f) => f.seq)).toEqual([1, 2, 3, 4]);
  });
});
