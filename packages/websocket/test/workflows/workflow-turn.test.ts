import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import { expectWellFormedTurn, gate, isDone } from "@agentwire-chat/testkit/chat-harness";
import {
  type RouteTestServer,
  startRouteServer,
  translateGraph,
} from "@agentwire-chat/testkit/route-harness";
import { afterEach, describe, expect, it } from "vitest";

let server: RouteTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const ofType = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is Frame<T> => f.type === type);
const nodeStatuses = (frames: ServerFrame[]) =>
  ofType(frames, "node_update").map((f) => `${f.node_id}:${f.status}`);

async function saveTranslate(s: RouteTestServer, userId = "local") {
  await s.repos.users.ensure(userId);
  return await s.repos.workflows.create(userId, "Translate", translateGraph);
}

describe("the workflow route: a saved workflow as a chat turn", () => {
  it("runs the workflow with the chat text and relays its frames, seq-stamped, ending like any turn", async () => {
    server = await startRouteServer([{ text: ["Bon", "jour"], usage: { inputTokens: 5, outputTokens: 2 } }]);
    const wf = await saveTranslate(server);
    const client = await server.connect();
    client.command(
      "chat_message",
      { content: "Hello", workflow_target: "workflow", workflow_id: wf.id },
      "r1",
    );
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);

    const types = frames.map((f) => f.type);
    expect(types.slice(0, 2)).toEqual(["thread", "message"]);
    expect(types.slice(-4)).toEqual(["message", "usage", "agent_state", "chunk"]);
    const jobs = ofType(frames, "job_update");
    expect(jobs.map((j) => j.status)).toEqual(["running", "completed"]);
    expect(jobs[0]).toMatchObject({ workflow_id: wf.id });
    expect(types.indexOf("job_update")).toBeLessThan(types.indexOf("node_update"));
    expect(nodeStatuses(frames)).toEqual([
      "in:running",
      "in:completed",
      "llm:running",
      "llm:completed",
      "out:running",
      "out:completed",
    ]);
    expect(ofType(frames, "node_update").every((f) => f.job_id === jobs[0]?.job_id)).toBe(true);

    const [user, final] = ofType(frames, "message");
    expect(user?.message).toMatchObject({ role: "user", content: "Hello", status: "complete" });
    expect(final?.message).toMatchObject({
      role: "assistant",
      content: "Bonjour",
      status: "complete",
      provider: "scripted",
    });
    expect(ofType(frames, "usage")[0]).toMatchObject({ llm_calls: 1, cost_known: false });

    // The node asked the chat's provider with the chat message as its prompt.
    expect(server.provider.requests).toHaveLength(1);
    expect(server.provider.requests[0]).toMatchObject({
      model: "scripted-1",
      systemPrompt: "Translate to French.",
      messages: [{ role: "user", content: "Hello" }],
    });

    const threadId = (frames[0] as { thread_id: string }).thread_id;
    const { messages } = (await (await server.fetch(`/api/threads/${threadId}/messages`)).json()) as {
      messages: StoredMessage[];
    };
    expect(messages.map((m) => [m.role, m.content, m.status])).toEqual([
      ["user", "Hello", "complete"],
      ["assistant", "Bonjour", "complete"],
    ]);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("complete");

    // The next turn on the thread continues the seq without a gap.
    client.command("chat_message", { content: "Again", thread_id: threadId });
    const second = await client.collectUntil(isDone);
    expectWellFormedTurn(second, frames.length + 1);
  });

  it("stops mid-workflow: the running node is cancelled, the rest skipped, the turn stored as stopped", async () => {
    const started = gate();
    server = await startRouteServer(() => {
      started.open();
      return { text: "Bon", hold: "until-aborted" };
    });
    const wf = await saveTranslate(server);
    const client = await server.connect();
    client.command("chat_message", { content: "Hello", workflow_target: "workflow", workflow_id: wf.id });
    const thread = await client.next("thread");
    await started.promise;
    client.command("stop", { thread_id: thread.thread_id as string });
    const frames = [thread, ...(await client.collectUntil(isDone))];
    expectWellFormedTurn(frames);
    expect(ofType(frames, "job_update").map((j) => j.status)).toEqual(["running", "cancelled"]);
    expect(nodeStatuses(frames)).toEqual([
      "in:running",
      "in:completed",
      "llm:running",
      "llm:cancelled",
      "out:skipped",
    ]);
    const types = frames.map((f) => f.type);
    expect(types).toContain("generation_stopped");
    expect(ofType(frames, "message").at(-1)?.message).toMatchObject({ role: "assistant", status: "stopped" });
    expect((await server.repos.turns.latest("local", thread.thread_id as string))?.status).toBe("stopped");
    await client.ping();
  });

  it("a failing node fails the job, skips what follows and ends the turn with status error", async () => {
    server = await startRouteServer([{ error: "the model is down" }]);
    const wf = await saveTranslate(server);
    const client = await server.connect();
    client.command("chat_message", { content: "Hello", workflow_target: "workflow", workflow_id: wf.id });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    const failed = ofType(frames, "node_update").find((f) => f.status === "failed");
    expect(failed).toMatchObject({ node_id: "llm", node_type: "llm.prompt" });
    expect(failed?.error).toContain("the model is down");
    expect(nodeStatuses(frames)).toContain("out:skipped");
    const job = ofType(frames, "job_update").at(-1);
    expect(job).toMatchObject({ status: "failed" });
    expect(job?.error).toContain('node "llm"');
    const final = ofType(frames, "message").at(-1)?.message;
    expect(final).toMatchObject({ role: "assistant", status: "error" });
    expect(final?.content).toContain('Workflow failed: node "llm" (llm.prompt) failed');
    const turn = await server.repos.turns.latest("local", (frames[0] as { thread_id: string }).thread_id);
    expect(turn?.status).toBe("error");
    expect(turn?.error).toContain("the model is down");
  });

  it("ends with budget_exceeded when the run outlives the wall-clock budget", async () => {
    server = await startRouteServer([{ text: "Bon", hold: "until-aborted" }], {
      limits: { MAX_WALL_CLOCK_MS: 50 },
    });
    const wf = await saveTranslate(server);
    const client = await server.connect();
    client.command("chat_message", { content: "Hello", workflow_target: "workflow", workflow_id: wf.id });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    const reports = ofType(frames, "budget_exceeded");
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ reason: "wall_clock", limit: 50 });
    expect(reports[0]?.observed).toBeGreaterThanOrEqual(50);
    expect(ofType(frames, "job_update").at(-1)).toMatchObject({ status: "failed" });
    // After the run's last frame and before the ending, as on every route.
    const types = frames.map((f) => f.type);
    expect(types.slice(types.lastIndexOf("job_update") + 1)).toEqual([
      "budget_exceeded",
      "message",
      "usage",
      "agent_state",
      "chunk",
    ]);
    expect(ofType(frames, "message").at(-1)?.message).toMatchObject({ status: "budget_exceeded" });
    const turn = await server.repos.turns.latest("local", (frames[0] as { thread_id: string }).thread_id);
    expect(turn).toMatchObject({
      status: "budget_exceeded",
      error: "workflow exceeded its wall-clock budget of 50 ms",
    });
  });

  it("answers not_found for a missing or someone else's workflow, storing nothing", async () => {
    server = await startRouteServer([], { auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const wf = await saveTranslate(server, "alice");
    const client = await server.connect({ token: bob });
    client.command("chat_message", { content: "Hi", workflow_target: "workflow", workflow_id: wf.id }, "a");
    const theirs = await client.next("error");
    client.command("chat_message", { content: "Hi", workflow_target: "workflow", workflow_id: "nope" }, "b");
    const missing = await client.next("error");
    expect(theirs).toMatchObject({ code: "not_found", request_id: "a" });
    expect(missing).toMatchObject({ code: "not_found", message: theirs.message, request_id: "b" });
    client.command("chat_message", { content: "Hi", workflow_target: "workflow" }, "c");
    expect(await client.next("error")).toMatchObject({ code: "bad_request", request_id: "c" });
    expect(await server.repos.threads.list("bob")).toEqual([]);
    expect(await server.repos.threads.list("alice")).toEqual([]);
    expect(server.provider.requests).toHaveLength(0);
    void alice;
  });

  it("refuses a second turn on a busy thread", async () => {
    const started = gate();
    server = await startRouteServer(() => {
      started.open();
      return { text: "Bon", hold: "until-aborted" };
    });
    const wf = await saveTranslate(server);
    const client = await server.connect();
    client.command("chat_message", { content: "Hello", workflow_target: "workflow", workflow_id: wf.id });
    const thread = await client.next("thread");
    await started.promise;
    client.command(
      "chat_message",
      {
        content: "Again",
        thread_id: thread.thread_id as string,
        workflow_target: "workflow",
        workflow_id: wf.id,
      },
      "busy",
    );
    expect(await client.next("error", { where: (e) => e.request_id === "busy" })).toMatchObject({
      code: "busy",
    });
    client.command("stop", { thread_id: thread.thread_id as string });
    await client.collectUntil(isDone);
    expect(
      (await server.repos.messages.list("local", thread.thread_id as string)).filter(
        (m) => m.role === "user",
      ),
    ).toHaveLength(1);
  });

  it("a bare workflow_id goes to the chat agent; without workflow services the workflow route is unavailable", async () => {
    server = await startRouteServer([{ text: "agent answer" }], { workflows: false });
    const client = await server.connect();
    client.command("chat_message", { content: "Hi", workflow_id: "w1" });
    const frames = await client.collectUntil(isDone);
    expect(frames.some((f) => f.type === "job_update")).toBe(false);
    expect(ofType(frames, "message").at(-1)?.message).toMatchObject({ content: "agent answer" });
    client.command("chat_message", { content: "Hi", workflow_target: "workflow", workflow_id: "w1" }, "u");
    expect(await client.next("error")).toMatchObject({ code: "unavailable", request_id: "u" });
  });
});
