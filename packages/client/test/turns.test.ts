import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { script } from "@agentwire-chat/testkit/plan-script";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import { type Client, ClientError, type ToolCard, type TurnView } from "../src/index.js";
import { chunks, readAll, seqs } from "./support/frames.js";

let server: ChatTestServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

function open(options: Parameters<typeof testClient>[1] = {}): Client {
  if (!server) throw new Error("no server");
  const client = testClient(server.wsUrl, options);
  clients.push(client);
  return client;
}

const firstUserText = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};

/** The root splits into two subtasks that run at once, then joins their results. */
const parallel = (r: ProviderRequest): ScriptedStep => {
  const task = firstUserText(r);
  if (task === "sub:a") return { text: ["result-", "A"] };
  if (task === "sub:b") return { text: ["result-", "B"] };
  if (r.messages.at(-1)?.role !== "tool")
    return {
      text: "Splitting.",
      toolCalls: [
        { id: "sub_a", name: "run_subtask", args: { title: "Part A", instructions: "sub:a" } },
        { id: "sub_b", name: "run_subtask", args: { title: "Part B", instructions: "sub:b" } },
      ],
    };
  const results = r.messages.flatMap((m) => (m.role === "tool" ? [m.content] : []));
  return { text: `final: ${results.join(" | ")}` };
};

/** The tree as ids, names, statuses and text runs, nested. */
function shape(turn: TurnView | undefined, children = turn?.root ?? []): unknown[] {
  return children.map((c) => {
    if (c.kind === "text") return c.text;
    if (c.kind === "approval") return `approval:${c.id}`;
    if (c.kind === "cut") return `cut:${c.text}`;
    const card = turn?.cards[c.id] as ToolCard;
    return { [`${card.name}#${card.id}`]: card.status, children: shape(turn, card.children) };
  });
}

describe("turns through @agentwire-chat/client", () => {
  it("parallel subtasks: a nested client gets their text in the tree while they run, a flat one only the root's", async () => {
    server = await startChatServer(parallel);
    const nested = open();
    const flat = open({ nested: false });
    const a = nested.send({ content: "split it" });
    const aFrames = await readAll(a);
    const b = flat.send({ content: "split it" });
    const bFrames = await readAll(b);

    expect(await a.text()).toBe("final: result-A | result-B");
    expect(await b.text()).toBe("final: result-A | result-B");
    // The nested socket got the subtasks' text (depth 1 under each call); the flat one none of it.
    expect(chunks(aFrames).filter((c) => c.startsWith("1:sub_a:"))).toEqual(["1:sub_a:result-", "1:sub_a:A"]);
    expect(chunks(aFrames).filter((c) => c.startsWith("1:sub_b:"))).toEqual(["1:sub_b:result-", "1:sub_b:B"]);
    expect(chunks(bFrames).every((c) => c.startsWith("0:"))).toBe(true);
    // Nested seqs have no gaps; flat ones skip the subtask text, and the SDK does not call that a gap.
    const s = seqs(aFrames);
    expect(s).toEqual(s.map((_, i) => (s[0] ?? 0) + i));
    expect(b.errors).toEqual([]);
    const ended = [
      "Splitting.",
      { "run_subtask#sub_a": "complete", children: [] },
      { "run_subtask#sub_b": "complete", children: [] },
      "final: result-A | result-B",
    ];
    expect(shape(a.tree)).toEqual(ended);
    expect(shape(b.tree)).toEqual(ended);
    expect((await a.done).usage).toMatchObject({ subtasks: 2, llm_calls: 4 });
  });

  it("a nested client's live tree holds each subtask's text under its card", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    server = await startChatServer((r) => {
      const step = parallel(r);
      return firstUserText(r).startsWith("sub:") ? { ...step, hold: held } : step;
    });
    const turn = open().send({ content: "split it" });
    const live = await until(() => {
      const t = turn.tree;
      const textOf = (id: string) => JSON.stringify(t?.cards[id]?.children ?? []);
      return textOf("sub_a").includes("result-A") && textOf("sub_b").includes("result-B") ? t : undefined;
    }, "both subtasks' text in their cards");
    expect(shape(live)).toEqual([
      "Splitting.",
      { "run_subtask#sub_a": "running", children: ["result-A"] },
      { "run_subtask#sub_b": "running", children: ["result-B"] },
    ]);
    release();
    expect((await turn.done).status).toBe("complete");
  });

  it("ask_user is answered through the turn, and the answer reaches the model", async () => {
    server = await startChatServer((r) => {
      const last = r.messages.at(-1);
      return last?.role === "tool"
        ? { text: `you said ${last.content}` }
        : { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which color?" } }] };
    });
    const turn = open().send({ content: "paint it" });
    const question = await until(() => turn.tree?.questions.find((q) => !q.resolved), "the question");
    expect(question.question).toBe("Which color?");
    expect(turn.tree?.state).toBe("waiting_user");
    await turn.answer("blue");
    expect(await turn.text()).toBe("you said blue");
    expect((await turn.done).status).toBe("complete");
    // A second answer is refused by the server: the call it answers rejects, with the server's code.
    await expect(turn.answer("red", "ask_1")).rejects.toMatchObject({ code: "bad_request" });
  });

  it("a gated tool call is approved through the turn; a refused approval rejects only its call", async () => {
    const tool = echoTool("write_note", "workspace_write");
    server = await startChatServer(
      (r) => {
        const last = r.messages.at(-1);
        return last?.role === "tool"
          ? { text: `result: ${last.content}` }
          : { toolCalls: [{ id: "w1", name: "write_note", args: { text: "hi" } }] };
      },
      { policy: { workspaceWrite: "ask" }, extraTools: [tool] },
    );
    const turn = open().send({ content: "write it" });
    const approval = await until(() => turn.tree?.approvals.find((a) => !a.resolved), "the approval");
    expect(approval.toolName).toBe("write_note");
    const wrong = turn.approve("no-such-approval", "allow");
    await expect(wrong).rejects.toMatchObject({ code: "not_found" });
    await expect(wrong).rejects.toBeInstanceOf(ClientError);
    await turn.approve(approval.approvalId, "allow");
    expect((await turn.done).status).toBe("complete");
    expect(tool.calls).toHaveLength(1);
    expect(await turn.text()).toContain("result:");
  });

  it("stop() ends a streaming turn as stopped, with its partial text", async () => {
    server = await startChatServer([{ text: ["partial ", "answer"], hold: "until-aborted" }]);
    const turn = open().send({ content: "go on forever" });
    await until(
      () => JSON.stringify(turn.tree?.root ?? []).includes("answer") || undefined,
      "the streamed text",
    );
    await turn.stop();
    const end = await turn.done;
    expect(end.status).toBe("stopped");
    expect(end.usage).toMatchObject({ llm_calls: 1 });
    expect(await turn.text()).toBe("partial answer");
    expect(turn.tree?.stopped).toBe(true);
  });

  it("decidePlan() answers a draft plan with a new turn; a second decision on it is refused with its code", async () => {
    server = await startChatServer(script);
    const client = open();
    const drafting = client.send({ content: "make a report (draft_only)" });
    const frames = await readAll(drafting);
    const draft = frames.find((f) => f.type === "plan_ready_for_review");
    const plan_id = draft?.type === "plan_ready_for_review" ? draft.plan.id : "";
    const thread_id = await drafting.threadId;
    const approved = client.decidePlan({ thread_id, plan_id, decision: "approve" });
    expect(await approved.text()).toMatch(/^finished: /);
    expect((await approved.done).status).toBe("complete");
    expect((await readAll(approved))[0]).toMatchObject({ seq: (seqs(frames).at(-1) ?? 0) + 1 });
    const again = client.decidePlan({ thread_id, plan_id, decision: "revise", feedback: "more" });
    expect(await again.done).toMatchObject({ status: "error", error: { code: "bad_request" } });
  });

  it("a refused message (busy) ends its own turn with the code and leaves the running one alone", async () => {
    server = await startChatServer([{ text: ["slow"], hold: "until-aborted" }]);
    const client = open();
    const first = client.send({ content: "one" });
    const threadId = await first.threadId;
    // The SDK queues by default (branches-queue.test.ts); `reject` asks for the refusal.
    const second = client.send({ content: "two", thread_id: threadId, onBusy: "reject" });
    const end = await second.done;
    expect(end).toMatchObject({ status: "error", error: { code: "busy" } });
    expect(first.isDone).toBe(false);
    await first.stop();
    expect((await first.done).status).toBe("stopped");
  });

  it("two clients on one thread see the same turn; resume() on an ended thread gives its last turn", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    server = await startChatServer([{ text: ["one ", "two"], hold: held }]);
    const a = open();
    const b = open();
    const turn = a.send({ content: "shared" });
    const threadId = await turn.threadId;
    await until(() => JSON.stringify(turn.tree?.root ?? []).includes("two") || undefined, "the text on a");
    const watching = b.resume(threadId);
    const [aFrames, bFrames] = [readAll(turn), readAll(watching)];
    await until(
      () => JSON.stringify(watching.tree?.root ?? []).includes("two") || undefined,
      "the text on b",
    );
    release();
    expect(await bFrames).toEqual(await aFrames);
    expect(await watching.text()).toBe("one two");
    expect((await watching.done).status).toBe("complete");
    expect(watching.tree?.user?.text).toBe("shared");

    expect(b.resume(threadId)).not.toBe(watching);
    const later = open().resume(threadId);
    expect((await later.done).status).toBe("complete");
    expect(await later.text()).toBe("one two");
  });

  it("threads: list, messages and live thread_state", async () => {
    server = await startChatServer([{ text: "hello" }, { text: "hello again" }]);
    const client = open();
    const states: string[] = [];
    client.threads.subscribe((s) => states.push(s.state));
    const turn = client.send({ content: "hi" });
    const threadId = await turn.threadId;
    await turn.done;
    await until(() => states.includes("idle") || undefined, "the idle state");
    expect(states).toContain("running");
    const threads = await client.threads.list();
    expect(threads.map((t) => t.id)).toEqual([threadId]);
    const messages = await client.threads.messages(threadId);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    await expect(client.threads.messages("nope")).rejects.toMatchObject({ code: "not_found" });

    // After a drop the client subscribes again on the new socket: a later turn's states still arrive.
    client.drop();
    await until(() => client.connected || undefined, "the reconnect");
    const before = states.length;
    await client.send({ content: "again", thread_id: threadId }).done;
    await until(() => states.slice(before).includes("idle") || undefined, "states after the reconnect");
    expect(states.slice(before)).toContain("running");
  });

  it("resume() of a thread that is not there ends with not_found; of a live one gives that turn", async () => {
    server = await startChatServer([{ text: ["slow"], hold: "until-aborted" }]);
    const client = open();
    const missing = client.resume("th_missing");
    expect(await missing.done).toMatchObject({ status: "error", error: { code: "not_found" } });
    const turn = client.send({ content: "one" });
    expect(client.resume(await turn.threadId)).toBe(turn);
    await turn.stop();
    expect((await turn.done).status).toBe("stopped");
  });
});
