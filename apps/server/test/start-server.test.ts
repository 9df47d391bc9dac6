import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@agentwire/websocket";
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
