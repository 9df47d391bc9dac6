/**
 * The turns whose frame sequences are recorded as the contract's fixtures (packages/protocol/fixtures/
 * frames): each runs a real server (ScriptedProvider, real socket, real tools where the scenario has
 * one) and returns what the client sent and every frame it received, in order.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWorkspaceTools, type ProviderRequest, type Tool } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";

/** A command the client sent, after the frame with seq `after_seq` (0: before any frame). */
export type SentCommand = { after_seq: number; command: string; request_id?: string; data: unknown };

/** One scenario's run: the client's commands and the server's frames, as they happened. */
export type Recording = { sent: SentCommand[]; frames: ServerFrame[] };

export type FrameScenario = {
  /** The fixture's file name (without `.json`). */
  name: string;
  /** One line on what the turn does, written into the fixture. */
  description: string;
  run(): Promise<Recording>;
};

/** A socket that remembers what it sent, and after which frame. */
class RecordingClient {
  readonly sent: SentCommand[] = [];
  constructor(readonly client: TestClient) {}

  command(command: string, data: unknown, requestId?: string): void {
    const lastSeq = this.client.received.findLast((f) => "seq" in f && typeof f.seq === "number");
    const after = lastSeq && "seq" in lastSeq ? (lastSeq.seq as number) : 0;
    this.sent.push({
      after_seq: after,
      command,
      ...(requestId !== undefined && { request_id: requestId }),
      data,
    });
    this.client.command(command, data, requestId);
  }

  /** Every frame up to and including the turn's `chunk {done:true}`. */
  untilDone(): Promise<ServerFrame[]> {
    return this.client.collectUntil(isDone);
  }

  recording(): Recording {
    return { sent: this.sent, frames: this.client.received.slice() };
  }
}

/** Starts a server, runs `body` on one nested socket, and always closes the server. */
async function withServer(
  script: Parameters<typeof startChatServer>[0],
  options: Parameters<typeof startChatServer>[1],
  body: (client: RecordingClient, server: ChatTestServer) => Promise<void>,
): Promise<Recording> {
  const server = await startChatServer(script, options);
  try {
    const client = new RecordingClient(await server.connect());
    await body(client, server);
    return client.recording();
  } finally {
    await server.close();
  }
}

const firstUserText = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};
const lastToolResult = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "tool" ? last.content : undefined;
};
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });

const plain: FrameScenario = {
  name: "plain-answer",
  description: "A new thread; the model answers in two chunks, no tools.",
  run: () =>
    withServer([{ text: ["Hello", " there!"], usage: usage(12, 3) }], {}, async (client) => {
      client.command("chat_message", { content: "Say hello" }, "r1");
      await client.untilDone();
    }),
};

/** Runs `body` with a workspace holding `notes.txt` for the user `local`, and the real read_file tool. */
async function withNotes<T>(body: (tools: Tool[]) => Promise<T>): Promise<T> {
  const workspaceRoot = mkdtempSync(join(tmpdir(), "agentwire-frames-"));
  mkdirSync(join(workspaceRoot, "local"));
  writeFileSync(join(workspaceRoot, "local", "notes.txt"), "buy milk\n");
  try {
    const tools = createWorkspaceTools({ workspaceRoot, userId: "local" });
    return await body(tools.filter((t) => t.name === "read_file"));
  } finally {
    rmSync(workspaceRoot, { recursive: true, force: true });
  }
}

const readNotes = { id: "call_1", name: "read_file", args: { path: "notes.txt" } };

const toolCall: FrameScenario = {
  name: "tool-call",
  description: "A new thread; the model reads a file with read_file (a real workspace tool), then answers.",
  run: () =>
    withNotes((extraTools) =>
      withServer(
        [
          { text: "Let me look.", toolCalls: [readNotes], usage: usage(410, 18) },
          { text: "It says: buy milk.", usage: usage(440, 9) },
        ],
        { extraTools },
        async (client) => {
          client.command("chat_message", { content: "What's in notes.txt?" }, "r1");
          await client.untilDone();
        },
      ),
    ),
};

/** Root splits into two subtasks that run at once; each answers from its instructions. */
const parallelScript = (r: ProviderRequest): ScriptedStep => {
  const task = firstUserText(r);
  if (task === "sub:a") return { text: ["result-", "A"], usage: usage(50, 4) };
  if (task === "sub:b") return { text: ["result-", "B"], usage: usage(50, 4) };
  const result = lastToolResult(r);
  if (result === undefined)
    return {
      text: "Splitting.",
      toolCalls: [
        { id: "sub_a", name: "run_subtask", args: { title: "Part A", instructions: "sub:a" } },
        { id: "sub_b", name: "run_subtask", args: { title: "Part B", instructions: "sub:b" } },
      ],
      usage: usage(300, 40),
    };
  const results = r.messages
    .filter((m) => m.role === "tool")
    .map((m) => (m.role === "tool" ? m.content : ""));
  return { text: `final: ${results.join(" | ")}`, usage: usage(380, 12) };
};

const parallelSubtasks: FrameScenario = {
  name: "parallel-subtasks",
  description:
    "The model splits the work into two run_subtask calls that run at once, then combines their results.",
  run: () =>
    withServer(parallelScript, {}, async (client) => {
      client.command("chat_message", { content: "Do A and B" }, "r1");
      await client.untilDone();
    }),
};

const askUser: FrameScenario = {
  name: "ask-user",
  description:
    "The model asks the user (ask_user); the turn waits; the client answers; the turn goes on to done.",
  run: () =>
    withServer(
      (r) => {
        const answer = lastToolResult(r);
        return answer === undefined
          ? {
              text: "One question first.",
              toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which colour?" } }],
              usage: usage(200, 15),
            }
          : { text: `Painting it ${answer}.`, usage: usage(230, 6) };
      },
      {},
      async (client) => {
        client.command("chat_message", { content: "Paint the fence" }, "r1");
        const head = await client.client.collectUntil(
          (f) => f.type === "agent_state" && f.state === "waiting_on_user",
        );
        const threadId = (head[0] as { thread_id: string }).thread_id;
        client.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "blue" }, "a1");
        await client.untilDone();
      },
    ),
};

const stopMidStream: FrameScenario = {
  name: "stop-mid-stream",
  description:
    "The client stops the turn while the model is still streaming; the partial answer is stored as stopped.",
  run: () =>
    withServer([{ text: ["Once upon ", "a time"], hold: "until-aborted" }], {}, async (client) => {
      client.command("chat_message", { content: "Tell a story" }, "r1");
      const head = await client.client.collectUntil((f) => f.type === "chunk" && f.content === "a time");
      const threadId = (head[0] as { thread_id: string }).thread_id;
      client.command("stop", { thread_id: threadId }, "s1");
      await client.untilDone();
    }),
};

const budgetExceeded: FrameScenario = {
  name: "budget-exceeded",
  description:
    "MAX_TOTAL_LLM_CALLS is 1: the model reads a file, and the model call that would follow is over the budget.",
  run: () =>
    withNotes((extraTools) =>
      withServer(
        [{ text: "Looking it up.", toolCalls: [readNotes], usage: usage(100, 10) }],
        { extraTools, limits: { MAX_TOTAL_LLM_CALLS: 1 } },
        async (client) => {
          client.command("chat_message", { content: "What's in notes.txt?" }, "r1");
          await client.untilDone();
        },
      ),
    ),
};

const providerError: FrameScenario = {
  name: "provider-error",
  description:
    "The provider fails mid-stream (HTTP 529 overloaded) after some text; the partial answer is stored as error.",
  run: () =>
    withServer(
      [{ text: "Partial ", error: { message: "upstream overloaded", status: 529 } }],
      {},
      async (client) => {
        client.command("chat_message", { content: "Hi" }, "r1");
        await client.untilDone();
      },
    ),
};

/** Every recorded scenario, in the order the fixtures list them. */
export const frameScenarios: FrameScenario[] = [
  plain,
  toolCall,
  parallelSubtasks,
  askUser,
  stopMidStream,
  budgetExceeded,
  providerError,
];
