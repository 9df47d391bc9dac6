import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame, ThreadSummary } from "@agentwire-chat/protocol";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const states = (c: TestClient) =>
  c.received.filter((f): f is Frame<"thread_state"> => f.type === "thread_state");
const toolResults = (r: ProviderRequest) => r.messages.filter((m) => m.role === "tool").length;
const isSubtask = (r: ProviderRequest) => r.systemPrompt.startsWith("You are a focused sub-agent");

/** Root: an update, then a subtask that sends its own update and works until `held` opens; then done. */
function script(held: Promise<void>) {
  return (r: ProviderRequest): ScriptedStep => {
    const done = toolResults(r);
    if (isSubtask(r))
      return done === 0
        ? { toolCalls: [{ id: "up_2", name: "send_update", args: { message: "Deep in part 2." } }] }
        : { text: "dug", hold: held };
    if (done === 0)
      return { toolCalls: [{ id: "up_1", name: "send_update", args: { message: "Read 3 of 5 files." } }] };
    if (done === 1)
      return {
        toolCalls: [{ id: "sub_1", name: "run_subtask", args: { title: "Dig", instructions: "dig" } }],
      };
    return { text: "All done." };
  };
}

async function listed(token: string): Promise<ThreadSummary[]> {
  const res = await (server as ChatTestServer).fetch("/api/threads", { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { threads: ThreadSummary[] }).threads;
}

async function subscribed(token: string): Promise<TestClient> {
  const c = await (server as ChatTestServer).connect({ token });
  c.command("subscribe_threads", {});
  c.command("ping", {}, "subscribed");
  await until(() => c.received.some((f) => f.type === "pong"), "the subscription");
  return c;
}

describe("progress in the thread list while the user is away", () => {
  it("each send_update (any depth) reaches thread_state, the subscribe snapshot and GET /api/threads; the end clears it", async () => {
    const held = gate();
    server = await startChatServer(script(held.promise), { auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const watcher = await subscribed(alice);
    const stranger = await subscribed(bob);

    const driver = await server.connect({ token: alice });
    driver.command("chat_message", { content: "a long task" });
    const threadId = (await driver.next("thread")).thread_id as string;
    await until(() => states(watcher).length >= 3, "the two progress lines");
    // The user goes away: the turn keeps running and reporting.
    driver.ws.close();
    expect(states(watcher).slice(0, 3)).toEqual([
      { type: "thread_state", thread_id: threadId, state: "running" },
      { type: "thread_state", thread_id: threadId, state: "running", progress: "Read 3 of 5 files." },
      { type: "thread_state", thread_id: threadId, state: "running", progress: "Deep in part 2." },
    ]);

    // A list read now, and a socket that subscribes now, show the latest line.
    expect(await listed(alice)).toMatchObject([
      { id: threadId, state: "running", progress: "Deep in part 2." },
    ]);
    const late = await subscribed(alice);
    expect(states(late)).toEqual([
      { type: "thread_state", thread_id: threadId, state: "running", progress: "Deep in part 2." },
    ]);

    held.open();
    await until(() => states(watcher).some((f) => f.state === "idle"), "the turn's end");
    expect(states(watcher).at(-1)).toEqual({ type: "thread_state", thread_id: threadId, state: "idle" });
    const [after] = await listed(alice);
    expect(after).toMatchObject({ id: threadId, state: "idle" });
    expect(after).not.toHaveProperty("progress");
    // Another user hears nothing of it.
    expect(states(stranger)).toEqual([]);
    expect(await listed(bob)).toEqual([]);
  });
});
