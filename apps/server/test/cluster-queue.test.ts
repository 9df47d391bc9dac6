import type { QueuedMessage, ServerFrame } from "@agentwire-chat/protocol";
import { scriptedProviderModule } from "@agentwire-chat/testkit/fixtures";
import { until } from "@agentwire-chat/testkit/until";
import { describe, expect, it } from "vitest";
import { type ClusterClient, isDone, messagesOf, useCluster } from "./support/cluster-instances.js";

/**
 * Issue 38 on two real server processes over one Postgres and one Redis: a message queued through
 * instance B, for a turn running on A, runs when A's turn ends (stopped, or completed after a
 * question), with the queued id as its user message, and A's socket follows it without resume_chat.
 */
const { skip, instance, client } = useCluster({ provider: scriptedProviderModule, leaseMs: 600 });

type Queued = Extract<ServerFrame, { type: "message_queued" }>;

const dones = (c: ClusterClient) => c.frames.filter(isDone).length;

async function queueOn(onB: ClusterClient, threadId: string, content: string): Promise<Queued> {
  onB.send("chat_message", { content, thread_id: threadId, on_busy: "queue" }, "qb");
  const answer = await onB.until(
    (f) => (f.type === "message_queued" || f.type === "error") && f.request_id === "qb",
  );
  expect(answer).toMatchObject({ type: "message_queued", thread_id: threadId, mode: "queue", position: 1 });
  return answer as Queued;
}

describe.skipIf(skip)("a queue across two instances", { timeout: 60_000 }, () => {
  it("queued via B while A's turn runs; A's turn is stopped; the queued message runs next and A's socket follows it", async () => {
    const a = await instance("a");
    const b = await instance("b");
    const onA = await client(a.url);
    onA.send("chat_message", { content: "hold on" });
    await onA.until((f) => f.type === "chunk" && f.content === "holding ");
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;

    const onB = await client(b.url);
    const queued = await queueOn(onB, threadId, "from B");
    const listed = (await (await fetch(`${a.url}/api/threads/${threadId}/queue`)).json()) as {
      queued: QueuedMessage[];
    };
    expect(listed.queued.map((q) => q.message_id)).toEqual([queued.message_id]);

    onA.send("stop", { thread_id: threadId });
    await until(() => dones(onA) >= 2 || undefined, "the stopped turn and the queued turn on A's socket", {
      timeoutMs: 30_000,
    });
    const started = onA.frames.filter(
      (f): f is Extract<ServerFrame, { type: "turn_started" }> => f.type === "turn_started",
    );
    expect(started.map((f) => f.user_message_id).at(-1)).toBe(queued.message_id);
    const rows = await messagesOf(b.url, threadId);
    expect(rows.map((r) => [r.role, r.content, r.status])).toEqual([
      ["user", "hold on", "complete"],
      ["assistant", "holding ", "stopped"],
      ["user", "from B", "complete"],
      ["assistant", "you said: from B", "complete"],
    ]);
    expect(rows[2]?.id).toBe(queued.message_id);
    expect(rows[2]?.parent_message_id).toBe(rows[1]?.id);
    const after = (await (await fetch(`${b.url}/api/threads/${threadId}/queue`)).json()) as {
      queued: QueuedMessage[];
    };
    expect(after.queued).toEqual([]);
  });

  it("queued via B while A's turn waits on a question; answered on A, the turn completes and the queued message runs", async () => {
    const a = await instance("a");
    const b = await instance("b");
    const onA = await client(a.url);
    onA.send("chat_message", { content: "ask me" });
    const question = (await onA.until((f) => f.type === "question")) as { tool_call_id: string };
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
    const onB = await client(b.url);
    const queued = await queueOn(onB, threadId, "after the question");
    onA.send("answer", { thread_id: threadId, tool_call_id: question.tool_call_id, answer: "red" });
    await until(() => dones(onA) >= 2 || undefined, "the answered turn and the queued turn", {
      timeoutMs: 30_000,
    });
    const rows = await messagesOf(a.url, threadId);
    expect(rows.at(-2)).toMatchObject({ id: queued.message_id, role: "user", content: "after the question" });
    expect(rows.at(-1)).toMatchObject({
      role: "assistant",
      content: "you said: after the question",
      status: "complete",
    });
    expect(rows.some((r) => r.content === "you chose red")).toBe(true);
  });
});
