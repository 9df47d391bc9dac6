import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Update = Extract<ServerFrame, { type: "tool_call_update" }>;
const updates = (frames: ServerFrame[]) => frames.filter((f): f is Update => f.type === "tool_call_update");

/** The instructions a subtask level was started with (its first user message), or undefined at the root. */
function subtaskOf(request: ProviderRequest): string | undefined {
  const first = request.messages[0];
  return first?.role === "user" && typeof first.content === "string" && first.content.startsWith("sub:")
    ? first.content
    : undefined;
}

const hasToolResult = (request: ProviderRequest) => request.messages.some((m) => m.role === "tool");

describe("run_subtask over the socket", () => {
  it("runs two subtasks of one model turn in parallel: nested frames, stored rows, and the same tree after a reconnect", async () => {
    const echo = echoTool();
    // Parallel children call the provider in any order: the responder answers by who is asking.
    const respond = (request: ProviderRequest): ScriptedStep => {
      const sub = subtaskOf(request);
      if (sub === "sub:A") {
        return hasToolResult(request)
          ? { text: "A done" }
          : { text: "A looks", toolCalls: [{ id: "echo_a", name: "echo", args: { text: "a" } }] };
      }
      if (sub === "sub:B") return { text: ["B ", "done"] };
      return hasToolResult(request)
        ? { text: "All done" }
        : {
            text: "Splitting.",
            toolCalls: [
              { id: "sub_a", name: "run_subtask", args: { title: "Task A", instructions: "sub:A" } },
              { id: "sub_b", name: "run_subtask", args: { title: "Task B", instructions: "sub:B" } },
            ],
          };
    };
    server = await startChatServer(respond, { extraTools: [echo] });
    const client = await server.connect();
    client.command("chat_message", { content: "do both" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);
    const threadId = threadOf(frames);

    // Depth and parentage on every nested frame.
    const nested = frames.filter(
      (f): f is Update | Extract<ServerFrame, { type: "chunk" }> =>
        (f.type === "chunk" && f.done !== true) || f.type === "tool_call_update",
    );
    const where = (f: { parent_id: string | null; depth: number }) => [f.parent_id, f.depth];
    const chunkText = (parent: string | null) =>
      frames
        .filter((f) => f.type === "chunk" && f.parent_id === parent && f.done !== true)
        .map((f) => (f as { content: string }).content)
        .join("");
    expect(chunkText("sub_a")).toBe("A looksA done");
    expect(chunkText("sub_b")).toBe("B done");
    expect(chunkText(null)).toBe("Splitting.All done");
    for (const f of nested) {
      if (f.parent_id === null) expect(f.depth).toBe(0);
      else expect(where(f)).toEqual([f.parent_id, 1]);
      expect([null, "sub_a", "sub_b"]).toContain(f.parent_id);
    }
    const byId = (id: string) => updates(frames).filter((u) => u.tool_call_id === id);
    expect(byId("sub_a").map((u) => [u.status, u.parent_id, u.depth])).toEqual([
      ["start", null, 0],
      ["end", null, 0],
    ]);
    expect(byId("sub_a")[0]).toMatchObject({ name: "run_subtask", title: "Task A" });
    expect(byId("sub_b")[0]).toMatchObject({ name: "run_subtask", title: "Task B" });
    expect(byId("echo_a").map((u) => [u.status, u.parent_id, u.depth])).toEqual([
      ["start", "sub_a", 1],
      ["end", "sub_a", 1],
    ]);
    expect(byId("sub_a")[1]).toMatchObject({ result: "A done", is_error: false });
    expect(byId("sub_b")[1]).toMatchObject({ result: "B done", is_error: false });
    expect(echo.calls).toEqual([{ text: "a" }]);

    // The root's rows: the assistant turn with both calls, one tool row per call, the final answer.
    const final = finalRow(frames);
    expect(final).toMatchObject({ role: "assistant", content: "All done", status: "complete" });
    await client.close();

    // A new client after a reconnect reads the same rows and the same tree over HTTP.
    const later = await server.connect();
    await later.ping();
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => [r.role, r.tool_call_id ?? null, r.tool_calls?.map((c) => c.id) ?? null])).toEqual(
      [
        ["user", null, null],
        ["assistant", null, ["sub_a", "sub_b"]],
        ["tool", "sub_a", null],
        ["tool", "sub_b", null],
        ["assistant", null, null],
      ],
    );
    expect(rows[2]?.content).toBe("A done");
    expect(rows[3]?.content).toBe("B done");
    const tree = rows[4]?.execution_tree;
    expect(tree).toEqual(final.execution_tree);
    const live = updates(frames)
      .filter((u) => u.status === "start")
      .map((u) => ({ id: u.tool_call_id, parent_id: u.parent_id, name: u.name, title: u.title }));
    const stored = (tree?.nodes ?? []).map((n) => ({
      id: n.id,
      parent_id: n.parent_id,
      name: n.name,
      title: n.title,
    }));
    const byNodeId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(stored.sort(byNodeId)).toEqual(live.sort(byNodeId));
    expect(stored).toHaveLength(3);
    for (const node of tree?.nodes ?? []) {
      const end = updates(frames).find((u) => u.tool_call_id === node.id && u.status === "end");
      expect(node.result_preview).toBe(end?.result);
    }
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("complete");
  });

  it("refuses run_subtask past MAX_DEPTH with an error result, and the turn still completes", async () => {
    const respond = (request: ProviderRequest): ScriptedStep => {
      if (subtaskOf(request) === "sub:outer") {
        return hasToolResult(request)
          ? { text: "inner refused" }
          : {
              toolCalls: [
                { id: "sub_inner", name: "run_subtask", args: { title: "Inner", instructions: "sub:inner" } },
              ],
            };
      }
      return hasToolResult(request)
        ? { text: "finished anyway" }
        : {
            toolCalls: [
              { id: "sub_outer", name: "run_subtask", args: { title: "Outer", instructions: "sub:outer" } },
            ],
          };
    };
    server = await startChatServer(respond, { limits: { MAX_DEPTH: 1 } });
    const client = await server.connect();
    client.command("chat_message", { content: "nest" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);
    const inner = updates(frames).filter((u) => u.tool_call_id === "sub_inner");
    expect(inner.map((u) => [u.status, u.parent_id, u.depth])).toEqual([
      ["start", "sub_outer", 1],
      ["end", "sub_outer", 1],
    ]);
    expect(inner[1]?.is_error).toBe(true);
    expect(inner[1]?.result).toMatch(/depth/);
    // The subtask at the maximum depth is not even offered run_subtask.
    const childRequest = server.provider.requests.find((r) => subtaskOf(r) === "sub:outer");
    expect(childRequest?.tools.map((t) => t.name)).not.toContain("run_subtask");
    expect(server.provider.requests.some((r) => subtaskOf(r) === "sub:inner")).toBe(false);
    expect(finalRow(frames)).toMatchObject({ content: "finished anyway", status: "complete" });
    expect((await server.repos.turns.latest("local", threadOf(frames)))?.status).toBe("complete");
  });
});
