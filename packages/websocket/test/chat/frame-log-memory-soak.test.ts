import type { ServerFrame } from "@agentwire-chat/protocol";
import { MemoryFrameLog } from "@agentwire-chat/storage";
import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { type TestClient, testDialect } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The bound under test: far below what the turns below hold in total (several megabytes). */
const BOUND = 200 * 1024;
const SOCKETS = 20;
// 2,000 turns in a few seconds on SQLite; Postgres stores each turn's rows slower, so half as many (still
// over ten times the bound) keep its run to several seconds.
const TURNS_PER_SOCKET = testDialect === "postgres" ? 50 : 100;
const answer = Array.from({ length: 6 }, (_, i) => `word ${i} of a short answer, padded a little. `);

describe("the frame log's memory under thousands of short turns on new threads", { timeout: 120_000 }, () => {
  it("stays under FRAME_LOG_MEMORY_BYTES (plus the running turns' frames), and an evicted thread replays whole", async () => {
    server = await startChatServer(() => ({ text: answer }), {
      frameLogMemory: { maxMemoryBytes: BOUND },
      // One socket sends a turn as soon as the last one is done: far past a person's frame rate.
      serverLimits: { messagesPerSecond: 100_000, messageBurst: 100_000, maxConnectionsPerUser: SOCKETS + 1 },
    });
    const log = server.frames;
    if (!(log instanceof MemoryFrameLog)) throw new Error("the database's log keeps frames in memory");
    const clients = await Promise.all(
      Array.from({ length: SOCKETS }, () => server?.connect() as Promise<TestClient>),
    );
    // Sampled on every frame any socket receives: the log's bytes whenever a client could observe them.
    let highest = 0;
    let turnBytes = 0;
    for (const client of clients)
      client.ws.on("message", () => {
        highest = Math.max(highest, log.memoryStats().bytes);
      });
    let firstTurn: ServerFrame[] = [];
    const run = async (client: TestClient, socket: number) => {
      for (let turn = 0; turn < TURNS_PER_SOCKET; turn++) {
        // No thread_id: every turn starts a new thread.
        client.command("chat_message", { content: `turn ${socket}.${turn}` });
        const frames = await client.collectUntil(isDone);
        const bytes = frames.reduce((n, f) => n + JSON.stringify(f).length, 0);
        turnBytes = Math.max(turnBytes, bytes);
        if (socket === 0 && turn === 0) firstTurn = frames;
      }
    };
    await Promise.all(clients.map(run));
    const stats = log.memoryStats();
    const total = SOCKETS * TURNS_PER_SOCKET * turnBytes;
    expect(total).toBeGreaterThan(10 * BOUND);
    expect(stats.evictions).toBeGreaterThan((SOCKETS * TURNS_PER_SOCKET) / 2);
    // Idle threads are forgotten at the end of each commit; what may sit above the bound meanwhile is
    // the running turns' frames, one turn per socket (a frame's stored JSON is at most its sent one).
    expect(highest).toBeLessThanOrEqual(BOUND + SOCKETS * turnBytes);
    expect(stats.bytes).toBeLessThanOrEqual(BOUND);

    // The first thread went long ago: its replay is read from the store, every frame of its turn.
    const threadId = threadOf(firstTurn);
    expect(log.retained(threadId).frames).toBe(0);
    const again = await server.connect();
    again.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const replay = await again.collectUntil((f) => f.type === "chat_resumed");
    expect(replay.slice(0, -1)).toEqual(firstTurn);
  });
});
