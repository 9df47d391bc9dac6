import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { MemoryFrameLog } from "@agentwire-chat/storage";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import { finalRow, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The replay window of the scaled-down log: the turn streams many times this many frames. */
const WINDOW = 100;
const CALLS = 8;
const CHUNKS = 250;

const words = (call: number) => Array.from({ length: CHUNKS }, (_, k) => `w${call}.${k} `);
const toolResults = (r: ProviderRequest) => r.messages.filter((m) => m.role === "tool").length;
const isSubtask = (r: ProviderRequest) => r.systemPrompt.startsWith("You are a focused sub-agent");

describe("a long turn holds no memory per chunk beyond the log's replay window", { timeout: 60_000 }, () => {
  it("thousands of chunks over many calls and a subtask: the log keeps its window, every frame replays from disk", async () => {
    const last = gate();
    const script = (r: ProviderRequest): ScriptedStep => {
      // The subtask streams as long as a root call, then answers.
      if (isSubtask(r)) return { text: words(99) };
      const done = toolResults(r);
      if (done === CALLS - 1) return { text: words(done), hold: last.promise };
      if (done === 2)
        return {
          text: words(done),
          toolCalls: [{ id: `s${done}`, name: "run_subtask", args: { title: "Dig", instructions: "dig" } }],
        };
      return { text: words(done), toolCalls: [{ id: `e${done}`, name: "echo", args: { text: `${done}` } }] };
    };
    server = await startChatServer(script, {
      extraTools: [echoTool()],
      frameLogMemory: { maxRecentFrames: WINDOW },
      limits: { MAX_WALL_CLOCK_MS: 3_600_000 },
    });
    const log = server.frames;
    if (!(log instanceof MemoryFrameLog)) throw new Error("the SQLite server's log keeps frames in memory");
    const client = await server.connect();
    const seen: ServerFrame[] = [];
    client.ws.on("message", (data) => seen.push(JSON.parse(String(data)) as ServerFrame));
    client.command("chat_message", { content: "a long task" });
    const lastWord = words(CALLS - 1).at(-1);
    await until(
      () => seen.some((f) => f.type === "chunk" && f.content === lastWord),
      "the last call's last chunk",
    );
    const threadId = threadOf(seen);
    const chunks = seen.filter((f) => f.type === "chunk").length;
    expect(chunks).toBeGreaterThanOrEqual((CALLS + 1) * CHUNKS);
    // While the turn still runs, after ~20 windows of chunks: the window (half of it after a trim), no more.
    const held = log.retained(threadId);
    expect(held.frames).toBeLessThanOrEqual(WINDOW);
    expect(held.bytes).toBeLessThanOrEqual(WINDOW * 400);

    last.open();
    await until(() => seen.some(isDone), "the turn's end");
    const frames = seen;
    expectWellFormedTurn(frames);
    expect(log.retained(threadId).frames).toBeLessThanOrEqual(WINDOW);
    // The answer is kept whole (what the turn must hold), and the stored row has it.
    expect(finalRow(frames)).toMatchObject({ content: words(CALLS - 1).join(""), status: "complete" });
    // A client that comes back from the start gets every frame, read from disk past the window.
    const again = await server.connect();
    again.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const replay = await again.collectUntil((f) => f.type === "chat_resumed");
    expect(replay.slice(0, -1)).toEqual(frames);
  });
});
