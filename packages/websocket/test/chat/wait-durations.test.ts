import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { readSuspendedTurn } from "@agentwire-chat/storage";
import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { finalRow, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lastResult = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "tool" ? last.content : undefined;
};
const inSubtask = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && first.content === "sub:ask";
};

/** Root → run_subtask "sub_1" → ask_user "ask_1". */
const askInSubtask = (request: ProviderRequest): ScriptedStep => {
  const result = lastResult(request);
  if (inSubtask(request)) {
    return result === undefined
      ? { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which color?" } }] }
      : { text: `child got: ${result}` };
  }
  return result === undefined
    ? { toolCalls: [{ id: "sub_1", name: "run_subtask", args: { title: "Ask", instructions: "sub:ask" } }] }
    : { text: `final: ${result}` };
};

const endOf = (frames: ServerFrame[], id: string) =>
  frames.find((f) => f.type === "tool_call_update" && f.tool_call_id === id && f.status === "end");

describe("the duration of a call that waited on the user", () => {
  it("counts the wait: the ask and the subtask above it end with the time the user took", async () => {
    server = await startChatServer(askInSubtask);
    const client = await server.connect();
    client.command("chat_message", { content: "pick a color" });
    const head = await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
    const threadId = threadOf(head);
    // The user answers 12 s after the question was stored: moved back, not slept.
    const row = await server.repos.turns.latest("local", threadId);
    const saved = readSuspendedTurn(row?.suspendedState);
    if (!saved?.suspendedAt) throw new Error("the suspension has no suspendedAt");
    await server.repos.turns.update("local", row?.id ?? "", {
      suspendedState: { ...saved, suspendedAt: saved.suspendedAt - 12_000 },
    });

    client.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "blue" });
    const rest = await client.collectUntil(isDone);
    for (const id of ["ask_1", "sub_1"]) {
      const end = endOf(rest, id);
      expect(end?.type === "tool_call_update" && end.duration_ms).toBeGreaterThanOrEqual(12_000);
      expect(end?.type === "tool_call_update" && end.duration_ms).toBeLessThan(60_000);
    }
    const nodes = finalRow(rest).execution_tree?.nodes ?? [];
    for (const node of nodes) expect(node.duration_ms, node.id).toBeGreaterThanOrEqual(12_000);
    expect(nodes.map((n) => n.id)).toEqual(["sub_1", "ask_1"]);
  });
});
