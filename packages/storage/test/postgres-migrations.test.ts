import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { findMigrationsFolder } from "@agentwire-chat/storage";
import { openPostgres, pgSchema } from "@agentwire-chat/storage/postgres";
import { openDatabase } from "@agentwire-chat/storage/sqlite";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentwire-chat/testkit/postgres-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { pgShape, type SchemaShape, sqliteShape } from "./schema-shape.js";

const skip = skipMissingService(postgresMissing());
const root = join(import.meta.dirname, "../../..");
const pgMigrations = findMigrationsFolder("postgres");
const journalEntries = (
  JSON.parse(readFileSync(join(pgMigrations, "meta", "_journal.json"), "utf8")) as { entries: unknown[] }
).entries.length;

let server: TestPostgres | undefined;
let dir: string | undefined;

beforeAll(async () => {
  if (!skip) server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(skip)("postgres migrations", () => {
  it("apply to a fresh database and again to an already-migrated one", async () => {
    const url = await server!.createDatabase();
    const first = await openPostgres({ url });
    expect(await first.isReady()).toBe(true);
    const tables = await query<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(["api_tokens", "messages", "threads", "turns", "users", "workflows"]),
    );
    await first.pool.query("INSERT INTO users (id, created_at) VALUES ('kept', 1)");
    await first.close();
    expect(await first.isReady()).toBe(false);

    const second = await openPostgres({ url });
    expect(await second.isReady()).toBe(true);
    expect((await second.pool.query("SELECT id FROM users")).rows).toEqual([{ id: "kept" }]);
    const applied = await second.pool.query("SELECT hash FROM drizzle.__drizzle_migrations");
    expect(applied.rowCount).toBe(journalEntries);
    await second.close();
  });

  it("lets two instances open one database at the same time, migrating it once", async () => {
    const url = await server!.createDatabase();
    const both = await Promise.all([openPostgres({ url }), openPostgres({ url })]);
    for (const handle of both) expect(await handle.isReady()).toBe(true);
    const applied = await both[0].pool.query("SELECT hash FROM drizzle.__drizzle_migrations");
    expect(applied.rowCount).toBe(journalEntries);
    await Promise.all(both.map((handle) => handle.close()));
  });

  it("reads bigint columns back as numbers through drizzle", async () => {
    const url = await server!.createDatabase();
    const handle = await openPostgres({ url, poolSize: 2 });
    const { users } = pgSchema;
    // Past 2^31, so an int4 column or a string from the driver would show here.
    await handle.db.insert(users).values({ id: "u", createdAt: 1_795_000_000_000 });
    expect(await handle.db.select().from(users)).toEqual([{ id: "u", createdAt: 1_795_000_000_000 }]);
    expect(handle.poolStats()).toEqual({ total: expect.any(Number), idle: expect.any(Number), waiting: 0 });
    expect(handle.poolStats().total).toBeLessThanOrEqual(2);
    await handle.close();
  });

  it("applies the statement timeout to the pool's connections", async () => {
    const url = await server!.createDatabase();
    const handle = await openPostgres({ url, statementTimeoutMs: 100 });
    await expect(handle.pool.query("SELECT pg_sleep(2)")).rejects.toThrow(/statement timeout/);
    await handle.close();
  });

  it("passes sslMode to the driver: require refuses a server without TLS", async () => {
    const url = await server!.createDatabase();
    await expect(openPostgres({ url, sslMode: "require" })).rejects.toThrow(/SSL/i);
    const plain = await openPostgres({ url, sslMode: "disable" });
    expect(await plain.isReady()).toBe(true);
    await plain.close();
  });
});

describe.skipIf(skip)("schema drift between SQLite and Postgres", () => {
  it("has the same tables, columns, nullability, defaults, keys, indexes and foreign keys", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-drift-"));
    const sqlite = await openDatabase({ path: join(dir, "drift.db") });
    let fromSqlite: SchemaShape;
    try {
      fromSqlite = sqliteShape(sqlite.sqlite);
    } finally {
      await sqlite.close();
    }
    const url = await server!.createDatabase();
    const postgres = await openPostgres({ url });
    let fromPostgres: SchemaShape;
    try {
      fromPostgres = await pgShape(postgres.pool);
    } finally {
      await postgres.close();
    }
    // A comparison of two empty shapes would pass; make sure both sides were read.
    expect(Object.keys(fromSqlite)).toContain("messages");
    // The one divergence by design: SQLite keeps threads.last_seq for its threads from before the
    // frame log (the frame log reads it once); Postgres never had such threads, and dropped it.
    expect(fromSqlite.threads?.columns.last_seq).toEqual({ notNull: true, default: "0" });
    expect(fromPostgres.threads?.columns.last_seq).toBeUndefined();
    delete fromSqlite.threads?.columns.last_seq;
    expect(fromPostgres).toEqual(fromSqlite);
  });
});

describe("generated Postgres migrations", () => {
  it("are up to date with pg-schema (run `pnpm db:generate:pg` when this fails)", () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-gen-pg-"));
    const out = join(dir, "postgres");
    cpSync(pgMigrations, out, { recursive: true });
    const result = spawnSync(
      join(root, "packages/storage/node_modules/.bin/drizzle-kit"),
      [
        "generate",
        "--dialect",
        "postgresql",
        "--schema",
        "packages/storage/src/postgres/schema/index.ts",
        "--out",
        // drizzle-kit puts "./" before --out, so an absolute path fails, yet it still exits 0.
        relative(root, out),
      ],
      // The schema imports @agentwire-chat/protocol: from its source, so no build is needed first.
      {
        cwd: root,
        encoding: "utf8",
        env: {
          ...process.env,
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --conditions=@agentwire-chat/source`,
        },
      },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/Error/);
    expect(readdirSync(out).filter((f) => f.endsWith(".sql"))).toEqual(
      readdirSync(pgMigrations).filter((f) => f.endsWith(".sql")),
    );
  });
});
