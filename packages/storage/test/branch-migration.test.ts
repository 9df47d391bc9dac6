import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findMigrationsFolder } from "@agentwire-chat/storage";
import { createPgRepositories, openPostgres } from "@agentwire-chat/storage/postgres";
import { createSqliteRepositories, openDatabase } from "@agentwire-chat/storage/sqlite";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentwire-chat/testkit/postgres-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

// The branches migration (sqlite 0007, postgres 0005) on a database stored before it: every thread's
// rows become one branch (each message after the one before it by seq), its newest the current leaf.

const skipPostgres = skipMissingService(postgresMissing());
let dir: string | undefined;
let server: TestPostgres | undefined;
beforeAll(async () => {
  if (!skipPostgres) server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A copy of the dialect's migrations before the branches migration (it and every later one left out). */
function previousMigrations(dialect: "sqlite" | "postgres"): string {
  dir ??= mkdtempSync(join(tmpdir(), "agentwire-branch-mig-"));
  const folder = join(dir, dialect);
  cpSync(findMigrationsFolder(dialect), folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => /_branches_queue$/.test(e.tag));
  expect(at).toBeGreaterThan(0);
  journal.entries.length = at;
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

// Two threads with messages (inserted out of seq order, ids not in seq order) and one without; a summary.
const SEED = [
  "INSERT INTO users (id, created_at) VALUES ('ann', 1)",
  "INSERT INTO threads (id, user_id, title, created_at, updated_at) VALUES ('t1', 'ann', 'one', 1, 1), ('t2', 'ann', 'two', 1, 1), ('t3', 'ann', 'empty', 1, 1)",
  `INSERT INTO messages (id, thread_id, user_id, seq, role, content, status, created_at) VALUES
     ('z', 't1', 'ann', 1, 'user', '"a"', 'complete', 1),
     ('m', 't1', 'ann', 3, 'user', '"c"', 'complete', 3),
     ('b', 't1', 'ann', 2, 'assistant', '"b"', 'complete', 2),
     ('a', 't1', 'ann', 4, 'assistant', '"d"', 'complete', 4),
     ('x', 't2', 'ann', 1, 'user', '"only"', 'complete', 5)`,
  `INSERT INTO thread_summaries (thread_id, user_id, summary, through_message_id, message_count, updated_at)
     VALUES ('t1', 'ann', 'so far', 'b', 2, 6)`,
];

const expectedParents = [
  { id: "z", parent_id: null },
  { id: "b", parent_id: "z" },
  { id: "m", parent_id: "b" },
  { id: "a", parent_id: "m" },
  { id: "x", parent_id: null },
];
const expectedLeaves = [
  { id: "t1", current_leaf_id: "a" },
  { id: "t2", current_leaf_id: "x" },
  { id: "t3", current_leaf_id: null },
];
const PARENTS = "SELECT id, parent_id FROM messages ORDER BY thread_id, seq";
const LEAVES = "SELECT id, current_leaf_id FROM threads ORDER BY id";

describe("the branches migration", () => {
  it("chains a SQLite database's existing messages and sets each thread's current leaf", async () => {
    const before = openDatabase({
      path: join(mkdtempSync(join(tmpdir(), "agentwire-branch-db-")), "db.sqlite"),
      migrationsFolder: previousMigrations("sqlite"),
    });
    const path = before.sqlite.name;
    for (const statement of SEED) before.sqlite.prepare(statement).run();
    before.close();

    const after = openDatabase({ path });
    try {
      expect(after.isReady()).toBe(true);
      expect(after.sqlite.prepare(PARENTS).all()).toEqual(expectedParents);
      expect(after.sqlite.prepare(LEAVES).all()).toEqual(expectedLeaves);
      const repos = createSqliteRepositories(after.db);
      expect((await repos.messages.branch("ann", "t1"))?.ids).toEqual(["z", "b", "m", "a"]);
      expect((await repos.summaries.get("ann", "t1", ["z", "b", "m", "a"]))?.summary).toBe("so far");
      // The next row follows the migrated leaf.
      const next = await repos.messages.append("ann", "t1", {
        role: "user",
        status: "complete",
        content: "e",
      });
      expect(next.parent_message_id).toBe("a");
    } finally {
      after.close();
      rmSync(join(path, ".."), { recursive: true, force: true });
    }
  });

  it.skipIf(skipPostgres)(
    "chains a Postgres database's existing messages and sets each thread's current leaf",
    async () => {
      const url = await server!.createDatabase();
      const before = await openPostgres({ url, migrationsFolder: previousMigrations("postgres") });
      for (const statement of SEED) await before.pool.query(statement);
      await before.close();

      const after = await openPostgres({ url });
      try {
        expect(await after.isReady()).toBe(true);
        expect((await after.pool.query(PARENTS)).rows).toEqual(expectedParents);
        expect((await after.pool.query(LEAVES)).rows).toEqual(expectedLeaves);
        const repos = createPgRepositories(after.db);
        expect((await repos.messages.branch("ann", "t1"))?.ids).toEqual(["z", "b", "m", "a"]);
        expect((await repos.summaries.get("ann", "t1", ["z", "b", "m", "a"]))?.summary).toBe("so far");
        // A second summary of the thread, through another message, is now allowed.
        await repos.summaries.put("ann", "t1", { summary: "later", throughMessageId: "m", messageCount: 3 });
        expect((await repos.summaries.get("ann", "t1", ["z", "b", "m", "a"]))?.summary).toBe("later");
      } finally {
        await after.close();
      }
    },
  );
});
