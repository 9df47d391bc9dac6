import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresMissing, startPostgres } from "@agentwire-chat/testkit/postgres-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { createLogger } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { loadConfig } from "../src/config.js";
import { type RunningServer, startServer } from "../src/start-server.js";

let server: RunningServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = undefined;
});

describe("startServer", () => {
  it("listens with a fresh database, answers health and ready, and closes clients with 1012", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-app-"));
    const config = loadConfig({ PORT: "0", DATABASE_PATH: join(dir, "db", "agentwire.db") });
    server = await startServer(config, { logger: createLogger({ level: "silent" }) });
    expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: "ok" });
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);

    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws`);
    const closed = new Promise<number>((resolve) => ws.once("close", resolve));
    const pong = new Promise<string>((resolve) => ws.once("message", (data) => resolve(data.toString())));
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send(JSON.stringify({ command: "ping", data: {} }));
    expect(JSON.parse(await pong)).toEqual({ type: "pong" });
    await server.close();
    expect(await closed).toBe(1012);
    expect(await server.storage.isReady()).toBe(false);
  });
});

describe.skipIf(skipMissingService(postgresMissing()))("startServer on Postgres (DATABASE_URL)", () => {
  it("runs on Postgres; a second instance without REDIS_URL is refused while the first runs, and starts once it stopped", async () => {
    const postgres = await startPostgres();
    try {
      const url = await postgres.createDatabase();
      const config = loadConfig({ PORT: "0", DATABASE_URL: url, DATABASE_PATH: "/nonexistent/unused.db" });
      const logger = createLogger({ level: "silent" });
      server = await startServer(config, { logger });
      expect(server.storage.dialect).toBe("postgres");
      expect(await (await fetch(`${server.url}/ready`)).json()).toEqual({
        status: "ready",
        checks: { database: "ok" },
      });
      await expect(startServer(config, { logger })).rejects.toThrow(/without REDIS_URL/);
      await server.close();
      server = await startServer(config, { logger });
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      await server.close();
      server = undefined;
    } finally {
      await postgres.stop();
    }
  }, 60_000);
});
