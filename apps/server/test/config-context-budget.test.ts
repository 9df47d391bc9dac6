import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { scriptedProviderModule } from "@agentwire-chat/testkit/fixtures";
import { createLogger } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ConfigError, loadConfig } from "../src/config.js";
import { type RunningServer, startServer } from "../src/start-server.js";

const provider = scriptedProviderModule;
let server: RunningServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** One chat turn on a real socket; the frames up to `chunk {done:true}`. */
async function oneTurn(url: string, content: string): Promise<ServerFrame[]> {
  const ws = new WebSocket(`${url.replace("http", "ws")}/ws`, ["agentwire.v1"]);
  const frames: ServerFrame[] = [];
  const done = new Promise<void>((resolve, reject) => {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as ServerFrame;
      frames.push(frame);
      if (frame.type === "chunk" && frame.done === true) resolve();
    });
    ws.once("error", reject);
  });
  await new Promise((resolve) => ws.once("open", resolve));
  ws.send(JSON.stringify({ command: "chat_message", data: { content } }));
  await done;
  ws.close();
  return frames;
}

describe("CONTEXT_MAX_TOKENS against MAX_HISTORY_TOKENS", () => {
  it("a CONTEXT_MAX_TOKENS above the default MAX_HISTORY_TOKENS is the budget: MAX_HISTORY_TOKENS follows it up", () => {
    const config = loadConfig({ CONTEXT_MAX_TOKENS: "200000" });
    expect(config.context.CONTEXT_MAX_TOKENS).toBe(200_000);
    expect(config.budget.MAX_HISTORY_TOKENS).toBe(200_000);
    // Below or equal, nothing moves.
    expect(loadConfig({ CONTEXT_MAX_TOKENS: "50000" }).budget.MAX_HISTORY_TOKENS).toBe(128_000);
    expect(loadConfig({}).budget.MAX_HISTORY_TOKENS).toBe(128_000);
  });

  it("refuses at start-up a CONTEXT_MAX_TOKENS above an explicitly set MAX_HISTORY_TOKENS, naming both", () => {
    const load = () => loadConfig({ CONTEXT_MAX_TOKENS: "200000", MAX_HISTORY_TOKENS: "100000" });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/CONTEXT_MAX_TOKENS: 200000 is above MAX_HISTORY_TOKENS \(100000\)/);
    expect(
      loadConfig({ CONTEXT_MAX_TOKENS: "100000", MAX_HISTORY_TOKENS: "100000" }).budget.MAX_HISTORY_TOKENS,
    ).toBe(100_000);
  });

  it("a turn on the real socket reports the operator's budget in context_usage, not 128000", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-ctx-"));
    const config = loadConfig({
      PORT: "0",
      DATABASE_PATH: join(dir, "agentwire.db"),
      AGENTWIRE_SCRIPTED_PROVIDER: provider,
      DEFAULT_PROVIDER: "scripted",
      CONTEXT_MAX_TOKENS: "200000",
    });
    server = await startServer(config, { logger: createLogger({ level: "silent" }) });
    const frames = await oneTurn(server.url, "hello");
    const usage = frames.filter((f) => f.type === "context_usage");
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ budget: 200_000 });
  });
});
