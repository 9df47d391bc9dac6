import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Chunk = Extract<ServerFrame, { type: "chunk" }>;
type Update = Extract<ServerFrame, { type: "tool_call_update" }>;
const chunks = (frames: ServerFrame[]) => frames.filter((f): f is Chunk => f.type === "chunk");
/** What a client that ignores nesting shows: every chunk's content in arrival order. */
const concatenated = (frames: ServerFrame[]) =>
  chunks(frames)
    .map((f) => f.content)
    .join("");

const subtaskOf = (request: ProviderRequest) => {
  const first = request.messages[0];
  return first?.role === "user" && typeof first.content === "string" && first.content.startsWith("sub:")
    ? first.content
    : undefined;
};
const hasToolResult = (request: ProviderRequest) => request.messages.some((m) => m.role === "tool");

/** Two parallel subtasks (A calls a tool), each streaming text; the root waits on `gate` before it starts. */
function parallelSubtasks(gate: Promise<void>) {
  return (request: ProviderRequest): ScriptedStep => {
    const sub = subtaskOf(request);
    if (sub === "sub:A") {
      return hasToolResult(request)
        ? { text: ["result", "-A"] }
        : { text: "A looks", toolCalls: [{ id: "echo_a", name: "echo", args: { text: "a" } }] };
    }
    if (sub === "sub:B") return { text: ["result", "-B"] };
    return hasToolResult(request)
      ? { text: ["final: ", "result-A | result-B"] }
      : {
          gate,
          text: "Splitting. ",
          toolCalls: [
            { id: "sub_a", name: "run_subtask", args: { title: "Part A", instructions: "sub:A" } },
            { id: "sub_b", name: "run_subtask", args: { title: "Part B", instructions: "sub:B" } },
          ],
        };
  };
}

async function follow(client: TestClient, threadId: string): Promise<void> {
  client.command("resume_chat", { thread_id: threadId, last_seq: 0 });
  await client.next("chat_resumed");
}

describe("the nesting capability (agentwire.v1+nested)", () => {
  it("gives subtask text only to a socket that offered it; a flat socket reads the answer alone", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    server = await startChatServer(parallelSubtasks(gate), { extraTools: [echoTool()] });
    const nested = await server.connect();
    const flat = await server.connect({ flat: true });
    expect(nested.ws.protocol).toBe("agentwire.v1+nested");
    expect(flat.ws.protocol).toBe("");

    nested.command("chat_message", { content: "do both" });
    const thread = await nested.next("thread");
    await follow(flat, thread.thread_id as string);
    open();
    const rich = await nested.collectUntil(isDone);
    const plain = await flat.collectUntil(isDone);

    // The nesting client: everything, gapless, subtask text at depth 1 under its run_subtask call.
    expectWellFormedTurn([thread, ...rich]);
    const textOf = (frames: ServerFrame[], parent: string | null) =>
      concatenated(chunks(frames).filter((c) => c.parent_id === parent));
    expect(textOf(rich, "sub_a")).toBe("A looksresult-A");
    expect(textOf(rich, "sub_b")).toBe("result-B");

    // The flat client: only depth-0 text, so concatenating every chunk gives the answer and nothing glued on.
    expect(chunks(plain).every((c) => c.depth === 0)).toBe(true);
    expect(concatenated(plain)).toBe("Splitting. final: result-A | result-B");
    expect(chunks(plain).filter((c) => c.done)).toHaveLength(1);
    // Subtask progress stays, flat: each run_subtask starts and ends, the tool inside A too.
    const progress = plain
      .filter((f): f is Update => f.type === "tool_call_update")
      .map((u) => `${u.tool_call_id}:${u.status}`);
    expect(progress).toEqual(
      expect.arrayContaining(["sub_a:start", "sub_a:end", "sub_b:start", "sub_b:end", "echo_a:end"]),
    );
    // Seqs still rise (with gaps where subtask text was left out), so resume_chat works the same.
    const seqs = plain.map((f) => (f as { seq: number }).seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    // Everything but the subtask text is identical for both.
    const withoutNestedText = [thread, ...rich].filter((f) => !(f.type === "chunk" && f.depth > 0));
    expect(plain).toEqual(withoutNestedText);
  });

  it("replays to a flat socket the way it streamed live (resume_chat after the turn)", async () => {
    server = await startChatServer(parallelSubtasks(Promise.resolve()), { extraTools: [echoTool()] });
    const nested = await server.connect();
    nested.command("chat_message", { content: "do both" });
    const live = await nested.collectUntil(isDone);
    const threadId = (live[0] as { thread_id: string }).thread_id;

    const flat = await server.connect({ flat: true, protocols: ["agentwire.v1"] });
    expect(flat.ws.protocol).toBe("agentwire.v1");
    flat.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const replay = await flat.collectUntil((f) => f.type === "chat_resumed");
    expect(concatenated(replay)).toBe("Splitting. final: result-A | result-B");
    expect(replay.filter((f) => f.type === "chunk" && f.depth > 0)).toEqual([]);

    const again = await server.connect();
    again.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const full = await again.collectUntil((f) => f.type === "chat_resumed");
    expect(concatenated(full)).toContain("result-A");
    expect(full.filter((f) => f.type === "chunk" && f.depth > 0).length).toBeGreaterThan(0);
  });
});
