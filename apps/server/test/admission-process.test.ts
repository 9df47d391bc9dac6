import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedProviderModule } from "@agentwire-chat/testkit/fixtures";
import { TestClient } from "@agentwire-chat/testkit/harness";
import { createLogger } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
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

describe("the process's admission queue (MAX_LIVE_TURNS, ADMISSION_QUEUE_MAX)", () => {
  it("queues a new turn past MAX_LIVE_TURNS, refuses one past the queue with overloaded, and reports it in /metrics", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-admission-"));
    const config = loadConfig({
      PORT: "0",
      DATABASE_PATH: join(dir, "agentwire.db"),
      AGENTWIRE_SCRIPTED_PROVIDER: provider,
      DEFAULT_PROVIDER: "scripted",
      MAX_LIVE_TURNS: "1",
      ADMISSION_QUEUE_MAX: "1",
      // The count alone decides here: a lagging test machine must not change what queues.
      ADMISSION_MAX_LAG_MS: "0",
    });
    server = await startServer(config, { logger: createLogger({ level: "silent" }) });
    const client = await TestClient.open(`${server.url.replace("http", "ws")}/ws`);
    try {
      client.command("chat_message", { content: "hold on" }, "first");
      const first = (await client.next("thread", { where: (f) => f.request_id === "first" })).thread_id;
      await client.next("chunk", { where: (f) => f.thread_id === first && f.content === "holding " });
      client.command("chat_message", { content: "then me" }, "second");
      const second = (await client.next("thread", { where: (f) => f.request_id === "second" })).thread_id;
      await client.next("agent_state", { where: (f) => f.thread_id === second && f.state === "queued" });
      client.command("chat_message", { content: "one too many" }, "third");
      expect(await client.next("error", { where: (f) => f.request_id === "third" })).toMatchObject({
        code: "overloaded",
      });
      const scrape = async () => (await fetch(`${server?.url}/metrics`)).text();
      const busy = await scrape();
      expect(busy).toContain("agentwire_admission_queue_depth 1");
      expect(busy).toContain("agentwire_live_turns 1");
      expect(busy).toContain('agentwire_admission_rejected_total{reason="queue_full"} 1');

      client.command("stop", { thread_id: first });
      await client.next("chunk", { where: (f) => f.thread_id === first && f.done === true });
      await client.next("chunk", { where: (f) => f.thread_id === second && f.done === true });
      const answer = client.received.findLast((f) => f.type === "message" && f.thread_id === second);
      expect(answer).toMatchObject({ message: { content: "you said: then me", status: "complete" } });
      expect(await scrape()).toContain("agentwire_admission_wait_seconds_count 2");
    } finally {
      await client.close();
    }
  });
});
