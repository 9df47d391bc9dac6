import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage } from "@agentwire-chat/storage";
import { createSqliteRepositories, openDatabase } from "@agentwire-chat/storage/sqlite";
import { postgresMissing, startPostgres } from "@agentwire-chat/testkit/postgres-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { createUserResolver } from "@agentwire-chat/websocket";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../src/cli-io.js";
import { runCli } from "../src/run-cli.js";
import { captureIo } from "./support/capture-io.js";

let dir: string;
let io: CliIo & { out: string; err: string };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentwire-cli-"));
  io = captureIo({ DATABASE_PATH: join(dir, "agentwire.db") });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function resolverFor(path: string) {
  const database = openDatabase({ path });
  const resolve = createUserResolver(
    { mode: "token", staticTokens: [] },
    createSqliteRepositories(database.db).apiTokens,
  );
  return { resolve, close: () => database.close() };
}

describe("agentwire token", () => {
  it("creates a token that authenticates, lists it without the secret, and revokes it", async () => {
    expect(await runCli(["token", "create", "--user", "alice"], io)).toBe(0);
    const token = io.out.trim();
    expect(token).toMatch(/^aw_[A-Za-z0-9_-]{43}$/);
    const { resolve, close } = resolverFor(io.env.DATABASE_PATH!);
    expect(await resolve(token)).toBe("alice");

    io.out = "";
    expect(await runCli(["token", "list"], io)).toBe(0);
    expect(io.out).not.toContain(token);
    const [, row] = io.out.trim().split("\n");
    const [id, user] = row!.split("\t");
    expect(user).toBe("alice");

    expect(await runCli(["token", "revoke", id!], io)).toBe(0);
    expect(await resolve(token)).toBeUndefined();
    expect(await runCli(["token", "revoke", id!], io)).toBe(1);
    close();
  });

  it.skipIf(skipMissingService(postgresMissing()))(
    "with DATABASE_URL, creates and revokes the token in Postgres, where the server finds it",
    async () => {
      const server = await startPostgres();
      try {
        const url = await server.createDatabase();
        io.env = { DATABASE_URL: url, DATABASE_PATH: join(dir, "not-used.db") };
        expect(await runCli(["token", "create", "--user", "bob"], io)).toBe(0);
        const token = io.out.trim();
        const storage = await openStorage({ databaseUrl: url, databasePath: join(dir, "not-used.db") });
        const resolve = createUserResolver({ mode: "token", staticTokens: [] }, storage.repos.apiTokens);
        expect(await resolve(token)).toBe("bob");
        const [id] = (await storage.repos.apiTokens.list("bob")).map((row) => row.id);
        expect(await runCli(["token", "revoke", id!], io)).toBe(0);
        expect(await resolve(token)).toBeUndefined();
        await storage.close();
      } finally {
        await server.stop();
      }
    },
    60_000,
  );

  it("refuses bad usage with exit 2", async () => {
    expect(await runCli(["token", "create"], io)).toBe(2);
    expect(await runCli(["token", "create", "--user", "no spaces"], io)).toBe(2);
    expect(await runCli(["token", "frobnicate"], io)).toBe(2);
    expect(await runCli(["nope"], io)).toBe(2);
    expect(io.err).toMatch(/usage/);
  });

  it("runs as the real `agentwire` command", () => {
    const root = join(import.meta.dirname, "../../..");
    const result = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--conditions=@agentwire-chat/source",
        "apps/cli/src/main.ts",
        "token",
        "create",
        "--user",
        "bob",
      ],
      { cwd: root, encoding: "utf8", env: { PATH: process.env.PATH, DATABASE_PATH: io.env.DATABASE_PATH } },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toMatch(/^aw_/);
    expect(result.stderr).toMatch(/shown once/);
  });
});
