import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages, threadOf } from "./turn-helpers.js";

let servers: ChatTestServer[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

const instructionsOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};
const toolRows = (r: ProviderRequest) =>
  r.messages.flatMap((m) => (m.role === "tool" ? [`${m.toolCallId}=${m.content}`] : []));
const answered = (r: ProviderRequest) => r.messages.at(-1)?.role === "tool";

/**
 * The root runs subtasks A and B at once; each asks the user. B's first model call waits on `bGate`,
 * which the test opens once A's question call has started, so A is asked first.
 */
function parallelAsks(bGate: Promise<void>) {
  return (request: ProviderRequest): ScriptedStep => {
    switch (instructionsOf(request)) {
      case "sub:a":
        return answered(request)
          ? { text: `A got ${toolRows(request).join(",")}` }
          : { toolCalls: [{ id: "ask_a", name: "ask_user", args: { question: "Colour for A?" } }] };
      case "sub:b":
        return answered(request)
          ? { text: `B got ${toolRows(request).join(",")}` }
          : {
              gate: bGate,
              text: "B thought first.",
              toolCalls: [{ id: "ask_b", name: "ask_user", args: { question: "Size for B?" } }],
            };
      default:
        return answered(request)
          ? { text: `root: ${toolRows(request).join(" | ")}` }
          : {
              text: "Splitting.",
              toolCalls: [
                { id: "sub_a", name: "run_subtask", args: { title: "A", instructions: "sub:a" } },
                { id: "sub_b", name: "run_subtask", args: { title: "B", instructions: "sub:b" } },
              ],
            };
    }
  };
}

const waiting = (f: ServerFrame) => f.type === "agent_state" && f.state === "waiting_on_user";
const questionIn = (frames: ServerFrame[]) =>
  frames.filter((f): f is Frame<"question"> => f.type === "question");

/** Starts the turn and returns its frames up to the first question (A's). */
async function askFirst(server: ChatTestServer, client: TestClient, open: () => void) {
  client.command("chat_message", { content: "two things" });
  const upToAsk = await client.collectUntil(
    (f) => f.type === "tool_call_update" && f.tool_call_id === "ask_a" && f.status === "start",
  );
  open();
  const rest = await client.collectUntil(waiting);
  const head = [...upToAsk, ...rest];
  expect(questionIn(head)).toEqual([
    expect.objectContaining({ tool_call_id: "ask_a", question: "Colour for A?" }),
  ]);
  const threadId = threadOf(head);
  expect((await server.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");
  return { head, threadId };
}

const updates = (frames: ServerFrame[]) =>
  frames.filter((f): f is Frame<"tool_call_update"> => f.type === "tool_call_update");

describe("parallel sibling subtasks that both ask the user", () => {
  it("asks both in turn, keeps both subtasks' work, and closes every call once", async () => {
    const bGate = gate();
    const server = await startChatServer(parallelAsks(bGate.promise));
    servers.push(server);
    const client = await server.connect();
    const { head, threadId } = await askFirst(server, client, bGate.open);

    client.command("answer", { thread_id: threadId, tool_call_id: "ask_a", answer: "red" });
    const middle = await client.collectUntil(waiting);
    expect(middle.some(isDone)).toBe(false);
    expect(questionIn(middle)).toEqual([
      expect.objectContaining({ tool_call_id: "ask_b", question: "Size for B?" }),
    ]);
    expect(updates(middle).map((e) => [e.tool_call_id, e.status, e.result])).toEqual([
      ["ask_a", "end", "red"],
      ["sub_a", "end", "A got ask_a=red"],
    ]);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");
    // The first question is answered: answering it again is refused; the second is the one that waits.
    client.command("answer", { thread_id: threadId, tool_call_id: "ask_a", answer: "again" }, "stale");
    expect(await client.next("error")).toMatchObject({ code: "bad_request", request_id: "stale" });

    client.command("answer", { thread_id: threadId, tool_call_id: "ask_b", answer: "large" });
    const tail = (await client.collectUntil(isDone)).filter((f) => f.type !== "error");
    const all = [...head, ...middle, ...tail];
    expectWellFormedTurn(all);
    expectStartsEnded(all);
    for (const id of ["sub_a", "sub_b", "ask_a", "ask_b"]) {
      expect(
        updates(all)
          .filter((e) => e.tool_call_id === id)
          .map((e) => e.status),
      ).toEqual(["start", "end"]);
    }
    expect(updates(tail).map((e) => [e.tool_call_id, e.status, e.result])).toEqual([
      ["ask_b", "end", "large"],
      ["sub_b", "end", "B got ask_b=large"],
    ]);
    // B resumed from its own question: its first model call was not repeated, its earlier text kept.
    const bRequests = server.provider.requests.filter((r) => instructionsOf(r) === "sub:b");
    expect(bRequests).toHaveLength(2);
    expect(bRequests[1]?.messages.at(-2)).toMatchObject({ role: "assistant", text: "B thought first." });
    // Both results reach the root model, in call order.
    const final = finalRow(tail);
    expect(final).toMatchObject({
      status: "complete",
      content: "root: sub_a=A got ask_a=red | sub_b=B got ask_b=large",
    });
    expect(final.execution_tree?.nodes.map((n) => [n.id, n.parent_id]).sort()).toEqual([
      ["ask_a", "sub_a"],
      ["ask_b", "sub_b"],
      ["sub_a", null],
      ["sub_b", null],
    ]);
    expect(final.execution_tree?.nodes.every((n) => n.result_preview !== undefined)).toBe(true);
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => [r.role, r.tool_call_id ?? null])).toEqual([
      ["user", null],
      ["assistant", null],
      ["tool", "sub_a"],
      ["tool", "sub_b"],
      ["assistant", null],
    ]);
  });

  it("the second question survives a restart between the two answers", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-parallel-q-"));
    const dbPath = join(dir, "agentwire.db");
    const bGate = gate();
    const first = await startChatServer(parallelAsks(bGate.promise), { dbPath });
    servers.push(first);
    const c1 = await first.connect();
    const { threadId } = await askFirst(first, c1, bGate.open);
    c1.command("answer", { thread_id: threadId, tool_call_id: "ask_a", answer: "red" });
    const middle = await c1.collectUntil(waiting);
    expect(questionIn(middle).map((q) => q.tool_call_id)).toEqual(["ask_b"]);
    const lastSeq = (middle.at(-1) as { seq: number }).seq;
    await first.close();
    servers = servers.filter((s) => s !== first);

    const second = await startChatServer(parallelAsks(Promise.resolve()), { dbPath });
    servers.push(second);
    expect((await second.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");
    const c2 = await second.connect();
    c2.command("resume_chat", { thread_id: threadId, last_seq: lastSeq - 2 });
    const replay = await c2.collectUntil((f) => f.type === "chat_resumed");
    expect(replay[0]).toMatchObject({ type: "question", tool_call_id: "ask_b" });
    c2.command("answer", { thread_id: threadId, tool_call_id: "ask_b", answer: "small" });
    const tail = await c2.collectUntil(isDone);
    expect(updates(tail).map((e) => [e.tool_call_id, e.result])).toEqual([
      ["ask_b", "small"],
      ["sub_b", "B got ask_b=small"],
    ]);
    // The new process only ran what was left: B's last step and the root's answer.
    expect(second.provider.requests.map(instructionsOf)).toEqual(["sub:b", "two things"]);
    expect(finalRow(tail)).toMatchObject({
      status: "complete",
      content: "root: sub_a=A got ask_a=red | sub_b=B got ask_b=small",
    });
  });

  it("a stop while the first question waits closes the deferred sibling's calls too", async () => {
    const bGate = gate();
    const server = await startChatServer(parallelAsks(bGate.promise));
    servers.push(server);
    const client = await server.connect();
    const { head, threadId } = await askFirst(server, client, bGate.open);
    client.command("stop", { thread_id: threadId });
    const rest = await client.collectUntil(isDone);
    const all = [...head, ...rest];
    expectWellFormedTurn(all);
    expectStartsEnded(all);
    const ends = updates(rest).map((e) => [e.tool_call_id, e.is_error, e.parent_id, e.depth]);
    expect(ends).toEqual([
      ["ask_a", true, "sub_a", 1],
      ["ask_b", true, "sub_b", 1],
      ["sub_b", true, null, 0],
      ["sub_a", true, null, 0],
    ]);
    expect(finalRow(rest).execution_tree?.nodes.every((n) => n.result_preview !== undefined)).toBe(true);
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => [r.role, r.tool_call_id ?? null])).toEqual([
      ["user", null],
      ["assistant", null],
      ["tool", "sub_a"],
      ["tool", "sub_b"],
      ["assistant", null],
    ]);
  });

  it("a stop while the second question waits closes every open call", async () => {
    const bGate = gate();
    const server = await startChatServer(parallelAsks(bGate.promise));
    servers.push(server);
    const client = await server.connect();
    const { head, threadId } = await askFirst(server, client, bGate.open);
    client.command("answer", { thread_id: threadId, tool_call_id: "ask_a", answer: "red" });
    const middle = await client.collectUntil(waiting);
    client.command("stop", { thread_id: threadId });
    const rest = await client.collectUntil(isDone);
    const all = [...head, ...middle, ...rest];
    expectWellFormedTurn(all);
    expectStartsEnded(all);
    expect(updates(rest).map((e) => [e.tool_call_id, e.result])).toEqual([
      ["ask_b", "cancelled"],
      ["sub_b", "cancelled"],
    ]);
    const rows = await storedMessages(server, threadId);
    const subA = rows.find((r) => r.tool_call_id === "sub_a");
    expect(subA?.content).toBe("A got ask_a=red");
    expect(rows.find((r) => r.tool_call_id === "sub_b")?.content).toBe("cancelled");
  });
});
