import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoggedFrame } from "@agentwire-chat/storage";
import {
  type AgentwireDatabase,
  openDatabase,
  SqliteFrameLog,
  sqliteStorage,
} from "@agentwire-chat/storage/sqlite";
import { until } from "@agentwire-chat/testkit/until";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let dir: string;
let database: AgentwireDatabase;
/** A second connection to the same file: it sees only what was committed. */
let reader: Database.Database;
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));
const silentLogger = { error: () => {}, warn: () => {} };
const committedThreads = () => (reader.prepare("SELECT count(*) AS n FROM threads").get() as { n: number }).n;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentwire-write-batch-"));
  database = openDatabase({ path: join(dir, "a.db") });
  reader = new Database(join(dir, "a.db"), { readonly: true });
});
afterEach(() => {
  reader.close();
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("sqliteStorage: the writes of one event-loop turn share one transaction", () => {
  it("a turn's rows are committed together at the end of the tick, not one by one", async () => {
    const { repos } = sqliteStorage(database);
    await repos.users.ensure("u");
    const a = await repos.threads.create("u", "a");
    await repos.threads.create("u", "b");
    await repos.messages.append("u", a.id, { role: "user", content: "hi", status: "complete" });
    // Same tick: the writing connection reads its own rows; nobody else sees them yet.
    expect((await repos.messages.list("u", a.id)).map((m) => m.content)).toEqual(["hi"]);
    expect(database.sqlite.inTransaction).toBe(true);
    expect(committedThreads()).toBe(0);
    await nextTick();
    expect(database.sqlite.inTransaction).toBe(false);
    expect(committedThreads()).toBe(2);
  });

  it("a failing write inside the batch rolls back alone; the tick's other rows commit", async () => {
    const { repos } = sqliteStorage(database);
    await repos.users.ensure("u");
    await repos.threads.create("u", "kept");
    // A message for a thread that does not exist fails inside its own savepoint.
    await expect(
      repos.messages.append("u", "no-such-thread", { role: "user", content: "x", status: "complete" }),
    ).rejects.toThrow();
    await repos.threads.create("u", "also kept");
    await nextTick();
    expect(committedThreads()).toBe(2);
  });

  it("the frame log delivers a frame only after the rows written before it are committed", async () => {
    const storage = sqliteStorage(database);
    const { repos } = storage;
    const log = new SqliteFrameLog(database.sqlite);
    await repos.users.ensure("u");
    const t = await repos.threads.create("u", "t");
    const turn = await repos.turns.start("u", t.id);
    await log.claim(t.id);
    const seenAtDelivery: number[] = [];
    log.subscribe(t.id, {
      id: "s",
      deliver: (frames: readonly LoggedFrame[]) => {
        seenAtDelivery.push(frames.length, committedThreads());
      },
    });
    await repos.messages.append("u", t.id, {
      role: "user",
      content: "q",
      status: "complete",
      turnId: turn.id,
    });
    log.append(t.id, turn.id, { type: "chunk", content: "a", parent_id: null, depth: 0 });
    expect(committedThreads()).toBe(0);
    await log.flush();
    // Delivered once, and by then the thread row was visible to another connection.
    expect(seenAtDelivery).toEqual([1, 1]);
    const stored = reader.prepare("SELECT count(*) AS n FROM frame_batches").get() as { n: number };
    expect(stored.n).toBe(1);
    log.close();
  });

  it("rows written in a tick whose frames the log will commit are committed with them, once", async () => {
    const storage = sqliteStorage(database);
    const log = storage.createFrameLog(silentLogger);
    const { repos } = storage;
    await repos.users.ensure("u");
    const t = await repos.threads.create("u", "t");
    const turn = await repos.turns.start("u", t.id);
    await log.claim(t.id);
    await nextTick();
    // A turn's start: rows first (the batch queues its commit), then, later in the same tick, the
    // turn's first frame (the log queues its commit after the batch's). A check in between sees
    // whether the rows were committed alone.
    await repos.threads.create("u", "started");
    let committedBetween = -1;
    setImmediate(() => {
      committedBetween = committedThreads();
    });
    log.append(t.id, turn.id, { type: "chunk", content: "a", parent_id: null, depth: 0 });
    await log.flush();
    expect(committedBetween).toBe(1);
    expect(committedThreads()).toBe(2);
    log.close();
  });

  it("closing the storage commits what the tick wrote", async () => {
    const storage = sqliteStorage(database);
    await storage.repos.users.ensure("u");
    await storage.repos.threads.create("u", "last");
    await storage.close();
    expect(committedThreads()).toBe(1);
  });
});

describe("sqliteStorage: WAL checkpoints run in a worker thread, not in a commit", () => {
  it("the serving connection never checkpoints; the worker copies the WAL into the file", async () => {
    const storage = sqliteStorage(database);
    expect(database.sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    const file = join(dir, "a.db");
    const before = statSync(file).size;
    await storage.repos.users.ensure("u");
    for (let i = 0; i < 200; i++) await storage.repos.threads.create("u", "x".repeat(2000));
    await nextTick();
    // The worker's passive checkpoint runs every half second.
    await until(() => statSync(file).size > before, "the checkpoint to grow the database file", {
      everyMs: 50,
    });
    expect(statSync(file).size).toBeGreaterThan(before);
    await storage.close();
  });
});
