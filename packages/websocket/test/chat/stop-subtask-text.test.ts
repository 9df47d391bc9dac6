import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { storedMessages, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Two parallel subtasks that stream, then work until the turn is stopped. */
function respond(request: ProviderRequest): ScriptedStep {
  const first = request.messages[0];
  const task = first?.role === "user" && typeof first.content === "string" ? first.content : "";
  if (task.startsWith("part ")) return { text: [`${task}: `, "so far"], hold: "until-aborted" };
  return {
    toolCalls: [
      { id: "s1", name: "run_subtask", args: { title: "Part A", instructions: "part A" } },
      { id: "s2", name: "run_subtask", args: { title: "Part B", instructions: "part B" } },
    ],
  };
}

describe("stop while subtasks stream", () => {
  it("stores each cut subtask's streamed text in the execution tree: the answer so far is kept", async () => {
    server = await startChatServer(respond);
    const client = await server.connect();
    client.command("chat_message", { content: "split it" });
    const seen = new Set<string>();
    const head = await client.collectUntil((f) => {
      if (f.type === "chunk" && f.content === "so far" && f.parent_id) seen.add(f.parent_id);
      return seen.size === 2;
    });
    const threadId = threadOf(head);
    client.command("stop", { thread_id: threadId });
    const frames = [...head, ...(await client.collectUntil(isDone))];
    expectWellFormedTurn(frames);
    const ends = frames.flatMap((f) => (f.type === "tool_call_update" && f.status === "end" ? [f] : []));
    expect(ends.map((f) => [f.tool_call_id, f.result, f.is_error]).sort()).toEqual([
      ["s1", 'subtask "Part A" cancelled', true],
      ["s2", 'subtask "Part B" cancelled', true],
    ]);
    const rows = await storedMessages(server, threadId);
    const final = rows.at(-1);
    expect(final).toMatchObject({ role: "assistant", status: "stopped" });
    const nodes = new Map((final?.execution_tree?.nodes ?? []).map((n) => [n.id, n]));
    expect(nodes.get("s1")).toMatchObject({ is_error: true, text: "part A: so far" });
    expect(nodes.get("s2")).toMatchObject({ is_error: true, text: "part B: so far" });
    // Cut short, not interrupted: no status on either.
    expect([nodes.get("s1")?.status, nodes.get("s2")?.status]).toEqual([undefined, undefined]);
  });
});
