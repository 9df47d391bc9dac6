import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { findMigrationsFolder } from "@agentwire-chat/storage";
import { openDatabase } from "@agentwire-chat/storage/sqlite";
import { afterEach, describe, expect, it } from "vitest";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("migrations", () => {
  it("apply to an empty file and again to an already-migrated one", () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-mig-"));
    const path = join(dir, "nested", "agentwire.db");
    const first = openDatabase({ path });
    expect(first.isReady()).toBe(true);
    const tables = first.sqlite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE '\\_\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' ORDER BY name",
      )
      .all()
      .map((r) => (r as { name: string }).name);
    expect(tables).toEqual(
      expect.arrayContaining([
        "api_tokens",
        "llm_calls",
        "memories",
        "messages",
        "threads",
        "tool_grants",
        "turns",
        "users",
        "workflows",
      ]),
    );
    // Dropped as unused (issue 23): the pending_actions table and turns.last_seq.
    expect(tables).not.toContain("pending_actions");
    const turnColumns = first.sqlite.pragma("table_info(turns)") as { name: string }[];
    expect(turnColumns.map((c) => c.name)).not.toContain("last_seq");
    first.sqlite.prepare("INSERT INTO users (id, created_at) VALUES ('kept', 1)").run();
    first.close();

    const second = openDatabase({ path });
    expect(second.isReady()).toBe(true);
    expect(second.sqlite.prepare("SELECT id FROM users").all()).toEqual([{ id: "kept" }]);
    expect(second.sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(second.sqlite.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(second.sqlite.pragma("busy_timeout", { simple: true })).toBe(5000);
    second.close();
  });

  it("finds each dialect's migrations in the top-level migrations/ folder, or at an explicit path", () => {
    const found = findMigrationsFolder("sqlite");
    expect(found.endsWith(join("migrations", "sqlite"))).toBe(true);
    expect(findMigrationsFolder("postgres").endsWith(join("migrations", "postgres"))).toBe(true);
    expect(findMigrationsFolder("sqlite", found)).toBe(found);
    expect(() => findMigrationsFolder("sqlite", "/nonexistent")).toThrow(/no drizzle migrations/);
  });

  it("reports not ready once the database is closed", () => {
    const db = openDatabase({ path: ":memory:" });
    db.close();
    expect(db.isReady()).toBe(false);
  });
});

describe("generated migrations", () => {
  it("are up to date with the drizzle schema (run `pnpm db:generate` when this fails)", () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-gen-"));
    const out = join(dir, "migrations");
    cpSync(findMigrationsFolder("sqlite"), out, { recursive: true });
    const root = join(import.meta.dirname, "../../..");
    const result = spawnSync(
      join(root, "packages/storage/node_modules/.bin/drizzle-kit"),
      [
        "generate",
        "--dialect",
        "sqlite",
        "--schema",
        "packages/storage/src/sqlite/schema/index.ts",
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
      readdirSync(findMigrationsFolder("sqlite")).filter((f) => f.endsWith(".sql")),
    );
  });
});
