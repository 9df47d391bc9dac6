import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FrameSubscriber, LoggedFrame } from "@agentwire-chat/storage";
import { createSqliteRepositories, openDatabase, SqliteFrameLog } from "@agentwire-chat/storage/sqlite";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "agentwire-frame-log-prop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THREADS = 3;
const CLIENTS = 3;

type Op =
  | { kind: "append"; thread: number; count: number }
  | { kind: "checkpoint"; thread: number }
  | { kind: "commit" }
  | { kind: "crash" }
  | { kind: "disconnect"; client: number; thread: number }
  | { kind: "resume"; client: number; thread: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      thread: fc.nat(THREADS - 1),
      count: fc.integer({ min: 1, max: 4 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("checkpoint" as const), thread: fc.nat(THREADS - 1) }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: "commit" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "crash" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("disconnect" as const),
      client: fc.nat(CLIENTS - 1),
      thread: fc.nat(THREADS - 1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("resume" as const),
      client: fc.nat(CLIENTS - 1),
      thread: fc.nat(THREADS - 1),
    }),
  },
);

let run = 0;

describe("SqliteFrameLog under appends, checkpoints, group commits, crashes and resumes", () => {
  it("delivers every committed frame exactly once and in order, never one that was not committed, and keeps the latest committed checkpoint, never ahead of its frames", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 60 }), async (ops) => {
        run += 1;
        const database = openDatabase({ path: join(dir, `run-${run}.db`) });
        try {
          const repos = createSqliteRepositories(database.db);
          await repos.users.ensure("u");
          const threads: { id: string; turnId: string }[] = [];
          for (let i = 0; i < THREADS; i++) {
            const thread = await repos.threads.create("u", "t");
            threads.push({ id: thread.id, turnId: (await repos.turns.start("u", thread.id)).id });
          }
          // The scheduled commits of the current process: a crash drops them unrun.
          let scheduled: (() => void)[] = [];
          const open = () =>
            new SqliteFrameLog(database.sqlite, { schedule: (commit) => scheduled.push(commit) });
          let log = open();
          // A process claims a thread before it appends (each turn does).
          const claimAll = async () => {
            for (const thread of threads) await log.claim(thread.id);
          };
          await claimAll();
          // What the model knows was committed (seq → json), per thread.
          const committed = threads.map(() => new Map<number, string>());
          let counter = 0;
          const received = Array.from({ length: CLIENTS }, () => threads.map((): LoggedFrame[] => []));
          const subscriber = (c: number, t: number): FrameSubscriber => ({
            id: `c${c}`,
            deliver: (frames) => {
              for (const f of frames) (received[c] as LoggedFrame[][])[t]?.push(f);
            },
          });
          const lastSeen = (c: number, t: number) => (received[c] as LoggedFrame[][])[t]?.at(-1)?.seq ?? 0;
          // A checkpoint claims the frames appended before it (`upTo`); the latest committed one is stored.
          type Saved = { upTo: number; n: number };
          let queued: (Saved | undefined)[] = threads.map(() => undefined);
          const stored: (Saved | undefined)[] = threads.map(() => undefined);
          const expectCheckpoints = () => {
            for (const [t, thread] of threads.entries()) {
              const row = database.sqlite
                .prepare("SELECT checkpoint FROM turns WHERE id = ?")
                .get(thread.turnId) as { checkpoint: string | null };
              const onDisk = row.checkpoint === null ? undefined : (JSON.parse(row.checkpoint) as Saved);
              expect(onDisk).toEqual(stored[t]);
              // Never ahead of the stored frames: what it claims is on disk.
              const lastStored = readDisk(database.sqlite, thread.id).at(-1)?.seq ?? 0;
              if (onDisk) expect(onDisk.upTo).toBeLessThanOrEqual(lastStored);
            }
          };
          const commitAll = () => {
            const run = scheduled;
            scheduled = [];
            for (const commit of run) commit();
            // No holds here: every queued checkpoint went with this commit.
            for (const [t, saved] of queued.entries()) if (saved) stored[t] = saved;
            queued = threads.map(() => undefined);
            expectCheckpoints();
            // Everything appended is now on disk (no holds in this model).
            for (const [t, thread] of threads.entries()) {
              for (const frame of readDisk(database.sqlite, thread.id))
                committed[t]?.set(frame.seq, frame.json);
            }
          };

          for (const step of ops) {
            switch (step.kind) {
              case "append": {
                const thread = threads[step.thread] as (typeof threads)[number];
                for (let i = 0; i < step.count; i++) {
                  log.append(thread.id, thread.turnId, {
                    type: "chunk",
                    content: `n${counter++}`,
                    parent_id: null,
                    depth: 0,
                  });
                }
                break;
              }
              case "checkpoint": {
                const thread = threads[step.thread] as (typeof threads)[number];
                const saved = { upTo: log.lastSeq(thread.id), n: counter++ };
                log.checkpoint(thread.id, thread.turnId, JSON.stringify(saved));
                queued[step.thread] = saved;
                break;
              }
              case "commit":
                commitAll();
                break;
              case "crash":
                // kill -9: the uncommitted tail is gone, every socket with it; so are queued checkpoints.
                scheduled = [];
                queued = threads.map(() => undefined);
                expectCheckpoints();
                log = open();
                await claimAll();
                break;
              case "disconnect":
                log.unsubscribe((threads[step.thread] as (typeof threads)[number]).id, `c${step.client}`);
                break;
              case "resume": {
                const thread = threads[step.thread] as (typeof threads)[number];
                log.unsubscribe(thread.id, `c${step.client}`);
                await log.resume(
                  thread.id,
                  lastSeen(step.client, step.thread),
                  subscriber(step.client, step.thread),
                  true,
                );
                break;
              }
            }
          }
          // The end: one last commit, every client resumes every thread from what it has.
          commitAll();
          for (let c = 0; c < CLIENTS; c++) {
            for (const [t, thread] of threads.entries()) {
              log.unsubscribe(thread.id, `c${c}`);
              await log.resume(thread.id, lastSeen(c, t), subscriber(c, t), false);
            }
          }

          for (const [t, thread] of threads.entries()) {
            const onDisk = readDisk(database.sqlite, thread.id);
            const seqs = onDisk.map((f) => f.seq);
            // Seqs on disk are 1..n without gaps: a crash never makes a seq reused or skipped.
            expect(seqs).toEqual(seqs.map((_, i) => i + 1));
            for (const frame of onDisk) expect(committed[t]?.get(frame.seq)).toBe(frame.json);
            for (let c = 0; c < CLIENTS; c++) {
              const got = (received[c] as LoggedFrame[][])[t] as LoggedFrame[];
              if (got.length === 0 && onDisk.length === 0) continue;
              // Exactly once, in order: the frames received are the committed ones, all of them.
              expect(got.map((f) => f.seq)).toEqual(seqs);
              // Never a frame that was not committed: each one is on disk with the same JSON.
              expect(got.map((f) => f.json)).toEqual(onDisk.map((f) => f.json));
              for (const f of got)
                expect(JSON.parse(f.json)).toMatchObject({ thread_id: thread.id, seq: f.seq });
            }
          }
          log.close();
        } finally {
          database.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});

/** The thread's frames as stored, straight from the table. */
function readDisk(sqlite: ReturnType<typeof openDatabase>["sqlite"], threadId: string): LoggedFrame[] {
  const rows = sqlite
    .prepare("SELECT first_seq, frames FROM frame_batches WHERE thread_id = ? ORDER BY first_seq")
    .all(threadId) as { first_seq: number; frames: string }[];
  return rows.flatMap((row) => row.frames.split("\n").map((json, i) => ({ seq: row.first_seq + i, json })));
}
