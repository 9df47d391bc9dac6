import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Repositories } from "@agentwire-chat/storage";
import { createPgRepositories, openPostgres } from "@agentwire-chat/storage/postgres";
import { createSqliteRepositories, openDatabase } from "@agentwire-chat/storage/sqlite";
import type { TestPostgres } from "@agentwire-chat/testkit/postgres-server";

/** The tables that hang off a thread, for reading what a cascade left behind. */
export type ThreadChildTable =
  | "messages"
  | "turns"
  | "llm_calls"
  | "assets"
  | "tool_grants"
  | "queued_messages"
  | "thread_summaries";

/** Nullable columns of the rows every turn inserts, for checking that a missing value is stored as NULL. */
export type NullableColumns = {
  messages: "is_error" | "tool_calls" | "tool_call_id" | "usage" | "execution_tree";
  turns:
    | "usage"
    | "error"
    | "suspended_state"
    | "ended_at"
    | "provider"
    | "model"
    | "request_id"
    | "checkpoint";
};

/** Repositories on a fresh database of one dialect, plus raw reads the interface does not offer. */
export interface RepositoryStore {
  readonly repos: Repositories;
  /** Repositories on a second, independent handle (own connection or pool) on the same database. */
  openTwin(): Promise<Repositories>;
  /** The thread's message seqs as stored, in order (StoredMessage does not carry them). */
  seqs(threadId: string): Promise<number[]>;
  /** How many rows of the table belong to the thread. */
  countForThread(table: ThreadChildTable, threadId: string): Promise<number>;
  /** How many of the thread's rows of the table hold SQL NULL in `column`. */
  countNulls<T extends keyof NullableColumns>(
    table: T,
    threadId: string,
    column: NullableColumns[T],
  ): Promise<number>;
  /** Closes every handle and removes what was created. */
  close(): Promise<void>;
}

/** One dialect under test: a fresh database per store. */
export interface RepositoryDialect {
  readonly name: "sqlite" | "postgres";
  open(): Promise<RepositoryStore>;
}

/** SQLite: each store is a new file in a temp dir, the twin a second connection on it. */
export function sqliteDialect(): RepositoryDialect {
  return {
    name: "sqlite",
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), "agentwire-repos-"));
      const path = join(dir, "repos.db");
      const main = openDatabase({ path });
      const handles = [main];
      return {
        repos: createSqliteRepositories(main.db),
        openTwin: async () => {
          const twin = openDatabase({ path });
          handles.push(twin);
          return createSqliteRepositories(twin.db);
        },
        seqs: async (threadId) =>
          (
            main.sqlite
              .prepare("SELECT seq FROM messages WHERE thread_id = ? ORDER BY seq")
              .all(threadId) as {
              seq: number;
            }[]
          ).map((r) => r.seq),
        countForThread: async (table, threadId) =>
          (
            main.sqlite.prepare(`SELECT count(*) AS n FROM ${table} WHERE thread_id = ?`).get(threadId) as {
              n: number;
            }
          ).n,
        countNulls: async (table, threadId, column) =>
          (
            main.sqlite
              .prepare(`SELECT count(*) AS n FROM ${table} WHERE thread_id = ? AND ${column} IS NULL`)
              .get(threadId) as { n: number }
          ).n,
        close: async () => {
          for (const handle of handles) handle.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** Postgres on the test's cluster (started by the caller): each store a new database, the twin a second pool. */
export function postgresDialect(server: () => TestPostgres | undefined): RepositoryDialect {
  return {
    name: "postgres",
    open: async () => {
      const cluster = server();
      if (!cluster) throw new Error("postgresDialect: the Postgres cluster is not started");
      const url = await cluster.createDatabase();
      const main = await openPostgres({ url });
      const handles = [main];
      return {
        repos: createPgRepositories(main.db),
        openTwin: async () => {
          const twin = await openPostgres({ url });
          handles.push(twin);
          return createPgRepositories(twin.db);
        },
        seqs: async (threadId) =>
          (
            await main.pool.query<{ seq: string }>(
              "SELECT seq FROM messages WHERE thread_id = $1 ORDER BY seq",
              [threadId],
            )
          ).rows.map((r) => Number(r.seq)),
        countForThread: async (table, threadId) =>
          Number(
            (
              await main.pool.query<{ n: string }>(
                `SELECT count(*) AS n FROM ${table} WHERE thread_id = $1`,
                [threadId],
              )
            ).rows[0]?.n,
          ),
        countNulls: async (table, threadId, column) =>
          Number(
            (
              await main.pool.query<{ n: string }>(
                `SELECT count(*) AS n FROM ${table} WHERE thread_id = $1 AND ${column} IS NULL`,
                [threadId],
              )
            ).rows[0]?.n,
          ),
        close: async () => {
          await Promise.all(handles.map((handle) => handle.close()));
        },
      };
    },
  };
}
