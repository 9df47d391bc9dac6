import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  applyFrames,
  type Client,
  ClientError,
  emptyThread,
  siblingsFrom,
  type ThreadView,
} from "../src/index.js";

let server: ChatTestServer | undefined;
const clients: Client[] = [];
/** Opened by each test to let a held answer go on. */
let held = gate();
/** Answers so far, so a regenerated answer differs from the first. */
let answers = 0;

beforeEach(() => {
  held = gate();
  answers = 0;
});
afterEach(async () => {
  held.open();
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

const textOf = (m: ProviderRequest["messages"][number] | undefined) =>
  typeof m?.content === "string" ? m.content : "";
const userTexts = (r: ProviderRequest) => r.messages.filter((m) => m.role === "user").map(textOf);

/** "hold": waits for `held`; "steer me": a tool call held, then an answer naming every user message seen; else an echo. */
function respond(r: ProviderRequest): ScriptedStep {
  const last = r.messages.at(-1);
  const users = userTexts(r);
  const ask = users.at(-1) ?? "";
  if (ask === "hold") return { text: "Held. ", hold: held.promise };
  if (users.includes("steer me")) {
    if (last?.role === "tool" || ask !== "steer me") return { text: `saw: ${users.join(" + ")}` };
    return {
      text: "Calling. ",
      toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }],
      hold: held.promise,
    };
  }
  return { text: `Hi: ${ask} #${++answers}` };
}

async function open(): Promise<Client> {
  server ??= await startChatServer(respond, { extraTools: [echoTool()] });
  const client = testClient(server.wsUrl);
  clients.push(client);
  return client;
}

/** A client's frames of one thread, applied to a view as an app would (onFrame → applyFrames). */
function watchView(client: Client, threadId: () => string | undefined): { view(): ThreadView } {
  let view = emptyThread();
  client.onFrame((frame: ServerFrame) => {
    const id = threadId();
    if (id !== undefined && "thread_id" in frame && frame.thread_id === id) view = applyFrames(view, [frame]);
  });
  return { view: () => view };
}

describe("queue, regenerate and branches through the client (a real server)", () => {
  it("a message sent while a turn runs is queued (turn.queued), then runs when the turn ends", async () => {
    const client = await open();
    const first = client.send({ content: "hold" });
    const threadId = await first.threadId;
    const watched = watchView(client, () => threadId);
    await until(() => first.tree?.root.length === 1);
    const second = client.send({ content: "next", thread_id: threadId });
    await until(() => second.queued !== undefined);
    const messageId = second.queued?.messageId as string;
    expect(second.queued).toEqual({ messageId, position: 1, mode: "queue" });
    expect(await second.threadId).toBe(threadId);
    expect(watched.view().queued).toEqual([{ messageId, content: "", mode: "queue", position: 1 }]);
    expect((await client.threads.queue(threadId)).map((q) => [q.message_id, q.mode, q.position])).toEqual([
      [messageId, "queue", 1],
    ]);
    held.open();
    expect((await first.done).status).toBe("complete");
    expect((await second.done).status).toBe("complete");
    expect(await second.text()).toBe("Hi: next #1");
    expect(second.queued).toBeUndefined();
    expect(second.tree?.userMessageId).toBe(messageId);
    expect(second.received.some((f) => f.type === "turn_started" && f.user_message_id === messageId)).toBe(
      true,
    );
    const rows = await client.threads.messages(threadId);
    expect(rows.map((r) => [r.role, r.content])).toEqual([
      ["user", "hold"],
      ["assistant", "Held. "],
      ["user", "next"],
      ["assistant", "Hi: next #1"],
    ]);
    expect(rows[2]?.id).toBe(messageId);
    const view = watched.view();
    expect(view.queued).toEqual([]);
    expect(view.turns.at(-1)?.userMessageId).toBe(messageId);
    expect(view.turns.at(-1)?.answerMessageId).toBe(rows[3]?.id);
  });

  it("cancelQueued takes a queued message back: its Turn ends stopped and nothing runs it", async () => {
    const client = await open();
    const first = client.send({ content: "hold" });
    const threadId = await first.threadId;
    await until(() => first.tree?.root.length === 1);
    const second = client.send({ content: "never", thread_id: threadId });
    await until(() => second.queued !== undefined);
    const messageId = second.queued?.messageId as string;
    await client.cancelQueued(threadId, messageId);
    expect((await second.done).status).toBe("stopped");
    expect(await client.threads.queue(threadId)).toEqual([]);
    const again = await client.cancelQueued(threadId, messageId).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ClientError);
    expect((again as ClientError).code).toBe("not_found");
    held.open();
    await first.done;
    const rows = await client.threads.messages(threadId);
    expect(rows.map((r) => r.content)).toEqual(["hold", "Held. "]);
  });

  it("onBusy reject is refused busy while a turn runs", async () => {
    const client = await open();
    const first = client.send({ content: "hold" });
    const threadId = await first.threadId;
    await until(() => first.tree?.root.length === 1);
    const refused = await client.send({ content: "no", thread_id: threadId, onBusy: "reject" }).done;
    expect(refused.status).toBe("error");
    expect(refused.error?.code).toBe("busy");
    held.open();
    await first.done;
  });

  it("steer: the message joins the running turn before its next model call; its Turn ends steered", async () => {
    const client = await open();
    const first = client.send({ content: "steer me" });
    const threadId = await first.threadId;
    await until(() => first.tree?.root.length === 1);
    const steer = client.send({ content: "also this", thread_id: threadId, onBusy: "steer" });
    await until(() => steer.queued !== undefined);
    expect(steer.queued?.mode).toBe("steer");
    const messageId = steer.queued?.messageId as string;
    held.open();
    expect(await steer.done).toEqual({ status: "complete", steered: true });
    expect((await first.done).status).toBe("complete");
    expect(await first.text()).toContain("saw: steer me + also this");
    expect(first.tree?.steered?.map((s) => [s.id, s.text])).toEqual([[messageId, "also this"]]);
    const steered = first.received.find((f) => f.type === "message" && f.steered);
    expect(steered?.type === "message" && steered.message.id).toBe(messageId);
  });

  it("regenerate answers a message again as a sibling; setCurrentLeaf and ?leaf= show the other branch", async () => {
    const client = await open();
    const first = client.send({ content: "Say hi" });
    const threadId = await first.threadId;
    await first.done;
    const [user, oldAnswer] = await client.threads.messages(threadId);
    const watched = watchView(client, () => threadId);
    const again = client.regenerate(threadId, user?.id as string);
    expect((await again.done).status).toBe("complete");
    expect(await again.text()).toBe("Hi: Say hi #2");
    expect(again.tree?.userMessageId).toBe(user?.id);
    const rows = await client.threads.messages(threadId);
    const newAnswer = rows[1];
    expect(rows.map((r) => r.content)).toEqual(["Say hi", "Hi: Say hi #2"]);
    expect(newAnswer?.parent_message_id).toBe(user?.id);
    expect(newAnswer?.sibling_ids).toEqual([oldAnswer?.id, newAnswer?.id]);
    expect(siblingsFrom(rows)).toEqual({ [newAnswer?.id as string]: [oldAnswer?.id, newAnswer?.id] });
    // The app's view learned the sibling from the frames alone.
    expect(watched.view().siblings[newAnswer?.id as string]).toEqual([oldAnswer?.id, newAnswer?.id]);

    const other = await client.threads.messages(threadId, { leaf: oldAnswer?.id as string });
    expect(other.map((r) => r.content)).toEqual(["Say hi", "Hi: Say hi #1"]);
    expect(await client.setCurrentLeaf(threadId, oldAnswer?.id as string)).toBe(oldAnswer?.id);
    expect((await client.threads.messages(threadId)).map((r) => r.content)).toEqual([
      "Say hi",
      "Hi: Say hi #1",
    ]);
    const unknown = await client.setCurrentLeaf(threadId, "no-such-message").catch((e: unknown) => e);
    expect((unknown as ClientError).code).toBe("not_found");
    const bad = await client.regenerate(threadId, oldAnswer?.id as string).done;
    expect(bad.error?.code).toBe("bad_request");
  });

  it("edit: a message after an earlier answer (parentMessageId) starts a branch; null edits the first", async () => {
    const client = await open();
    const one = client.send({ content: "one" });
    const threadId = await one.threadId;
    await one.done;
    const a1 = one.tree?.answerMessageId as string;
    await client.send({ content: "two", thread_id: threadId }).done;
    const [u1, , u2] = await client.threads.messages(threadId);
    expect(u2?.parent_message_id).toBe(a1);

    const edited = client.send({ content: "two, edited", thread_id: threadId, parentMessageId: a1 });
    expect((await edited.done).status).toBe("complete");
    const rows = await client.threads.messages(threadId);
    expect(rows.map((r) => r.content)).toEqual(["one", "Hi: one #1", "two, edited", "Hi: two, edited #3"]);
    expect(rows[2]?.sibling_ids).toEqual([u2?.id, rows[2]?.id]);
    expect(edited.tree?.userMessageId).toBe(rows[2]?.id);

    const first = client.send({ content: "one, edited", thread_id: threadId, parentMessageId: null });
    await first.done;
    const fresh = await client.threads.messages(threadId);
    expect(fresh.map((r) => r.content)).toEqual(["one, edited", "Hi: one, edited #4"]);
    expect(fresh[0]?.sibling_ids).toEqual([u1?.id, fresh[0]?.id]);
    // Not a turn's final row: refused.
    const wrong = await client.send({
      content: "x",
      thread_id: threadId,
      parentMessageId: fresh[0]?.id as string,
    }).done;
    expect(wrong.error?.code).toBe("bad_request");
  });
});
