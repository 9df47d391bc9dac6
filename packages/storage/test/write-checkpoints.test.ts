import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage, type Storage } from "@agentwire-chat/storage";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentwire-chat/testkit/postgres-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

// A frame log kept outside the database (Redis) hands it the checkpoints its frames are stored with.
const skipPostgres = skipMissingService(postgresMissing());
let server: TestPostgres | undefined;
let dir: string | undefined;
let storage: Storage | undefined;
beforeAll(async () => {
  if (!skipPostgres) server = await startPostgres();
}, 60_000);
afterEach(async () => {
  await storage?.close();
  storage = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
afterAll(async () => {
  await server?.stop();
});

const dialects = [
  {
    name: "sqlite",
    skip: false,
    open: () => {
      dir = mkdtempSync(join(tmpdir(), "agentwire-checkpoints-"));
      return openStorage({ databasePath: join(dir, "agentwire.db") });
    },
  },
  {
    name: "postgres",
    skip: skipPostgres,
    open: async () => openStorage({ databaseUrl: await server!.createDatabase(), databasePath: "unused" }),
  },
];

describe.each(dialects)("Storage.writeCheckpoints ($name)", ({ skip, open }) => {
  it.skipIf(skip)(
    "stores each turn's checkpoint over its previous one, leaving other turns alone",
    async () => {
      storage = await open();
      const { repos } = storage;
      await repos.users.ensure("ann", Date.now());
      const thread = await repos.threads.create("ann", "t");
      const first = await repos.turns.start("ann", thread.id, {});
      const second = await repos.turns.start("ann", thread.id, {});
      await storage.writeCheckpoints([
        { threadId: thread.id, turnId: first.id, json: '{"step":1}' },
        { threadId: thread.id, turnId: second.id, json: '{"other":true}' },
      ]);
      await storage.writeCheckpoints([{ threadId: thread.id, turnId: first.id, json: '{"step":2}' }]);
      await storage.writeCheckpoints([]);
      expect((await repos.turns.get("ann", first.id))?.checkpoint).toEqual({ step: 2 });
      expect((await repos.turns.get("ann", second.id))?.checkpoint).toEqual({ other: true });
    },
  );
});
