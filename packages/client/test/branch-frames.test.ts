import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import {
  applyFrames,
  emptyThread,
  emptyTurn,
  queuedFrom,
  reduceFrames,
  siblingsFrom,
  type ThreadView,
} from "../src/index.js";

const T = "th1";
let seq = 0;
const at = "2026-01-01T00:00:00Z";

function row(
  id: string,
  role: StoredMessage["role"],
  text: string,
  parent: string | null,
  final = false,
): StoredMessage {
  return {
    id,
    thread_id: T,
    role,
    content: text,
    status: "complete",
    created_at: at,
    parent_message_id: parent,
    ...(final && { execution_tree: { version: 1 as const, nodes: [] } }),
  };
}

const msg = (m: StoredMessage, extra: object = {}): ServerFrame =>
  ({ type: "message", message: m, thread_id: T, seq: ++seq, ...extra }) as ServerFrame;
const started = (turnId: string, userId: string): ServerFrame => ({
  type: "turn_started",
  turn_id: turnId,
  user_message_id: userId,
  thread_id: T,
  seq: ++seq,
});
const text = (content: string): ServerFrame => ({
  type: "chunk",
  content,
  parent_id: null,
  depth: 0,
  thread_id: T,
  seq: ++seq,
});
const done = (): ServerFrame => ({
  type: "chunk",
  content: "",
  done: true,
  parent_id: null,
  depth: 0,
  thread_id: T,
  seq: ++seq,
});

/** One whole turn: user message (after `parent`), turn_started, its answer, done. */
function turn(user: string, answer: string, parent: string | null, words: string): ServerFrame[] {
  return [
    msg(row(user, "user", words, parent)),
    started(`turn-${user}`, user),
    text(`re: ${words}`),
    msg(row(answer, "assistant", `re: ${words}`, user, true)),
    done(),
  ];
}

describe("branch and queue frames in the reducer", () => {
  it("notes which user message a turn answers and its final row (what an edit of the next follows)", () => {
    const view = reduceFrames(turn("u1", "a1", null, "hi"));
    const [t] = view.turns;
    expect(t?.userMessageId).toBe("u1");
    expect(t?.answerMessageId).toBe("a1");
    expect(t?.firstAnswerId).toBe("a1");
    expect(view.queued).toEqual([]);
    expect(view.siblings).toEqual({});
  });

  it("a step row with tool calls is not the answer; the final row with the execution tree is", () => {
    const step = { ...row("a1s", "assistant", "", "u1"), tool_calls: [{ id: "c1", name: "echo", args: {} }] };
    const view = reduceFrames([
      msg(row("u1", "user", "hi", null)),
      started("t1", "u1"),
      msg(step),
      msg(row("a1", "assistant", "done", "a1s", true)),
      done(),
    ]);
    expect(view.turns[0]?.firstAnswerId).toBe("a1s");
    expect(view.turns[0]?.answerMessageId).toBe("a1");
  });

  it("message_queued takes the content of the app's optimistic turn, which leaves the turns; its turn starting removes it", () => {
    const first = turn("u1", "a1", null, "first");
    let view: ThreadView = applyFrames(emptyThread(T), first.slice(0, 3));
    // The app shows what it sent at once, as it does for any message.
    view = {
      ...view,
      turns: [...view.turns, { ...emptyTurn("opt"), requestId: "r2", user: { text: "second" } }],
    };
    view = applyFrames(view, [
      {
        type: "message_queued",
        thread_id: T,
        message_id: "u2",
        mode: "queue",
        position: 1,
        request_id: "r2",
      },
    ]);
    expect(view.queued).toEqual([{ messageId: "u2", content: "second", mode: "queue", position: 1 }]);
    expect(view.turns.map((t) => t.userMessageId)).toEqual(["u1"]);
    expect(view.turns[0]?.running).toBe(true);
    view = applyFrames(view, [...first.slice(3), ...turn("u2", "a2", "a1", "second")]);
    expect(view.queued).toEqual([]);
    expect(view.turns.map((t) => [t.userMessageId, t.answerMessageId, t.user?.text])).toEqual([
      ["u1", "a1", "first"],
      ["u2", "a2", "second"],
    ]);
  });

  it("an interrupt goes to the front, a cancel renumbers", () => {
    const q = (id: string, position: number, mode: "queue" | "interrupt" = "queue"): ServerFrame => ({
      type: "message_queued",
      thread_id: T,
      message_id: id,
      mode,
      position,
    });
    let view = applyFrames(emptyThread(T), [q("m1", 1), q("m2", 2), q("m3", 1, "interrupt")]);
    expect(view.queued.map((x) => [x.messageId, x.position, x.mode])).toEqual([
      ["m3", 1, "interrupt"],
      ["m1", 2, "queue"],
      ["m2", 3, "queue"],
    ]);
    view = applyFrames(view, [
      { type: "queued_message_cancelled", thread_id: T, message_id: "m1", request_id: "x" },
    ]);
    expect(view.queued.map((x) => [x.messageId, x.position])).toEqual([
      ["m3", 1],
      ["m2", 2],
    ]);
  });

  it("a steered message joins the running turn where it came, and leaves the queue; it starts no turn", () => {
    const view = applyFrames(emptyThread(T), [
      msg(row("u1", "user", "go", null)),
      started("t1", "u1"),
      { type: "message_queued", thread_id: T, message_id: "s1", mode: "steer", position: 1 },
      text("working"),
      msg(row("s1", "user", "also this", "u1"), { steered: true }),
      text(" more"),
      msg(row("a1", "assistant", "working more", "s1", true)),
      done(),
    ]);
    expect(view.queued).toEqual([]);
    expect(view.turns).toHaveLength(1);
    expect(view.turns[0]?.steered).toEqual([{ id: "s1", text: "also this", at: 1 }]);
    expect(view.turns[0]?.running).toBe(false);
  });

  it("a regenerate's turn replaces the answered turn and what followed it; its first row is the old answer's sibling", () => {
    const frames = [...turn("u1", "a1", null, "one"), ...turn("u2", "a2", "a1", "two")];
    let view = applyFrames(emptyThread(T), frames);
    view = applyFrames(view, [
      started("t3", "u1"),
      text("again"),
      msg(row("a1b", "assistant", "again", "u1", true)),
      done(),
    ]);
    expect(view.turns.map((t) => [t.userMessageId, t.user?.text, t.answerMessageId])).toEqual([
      ["u1", "one", "a1b"],
    ]);
    expect(view.siblings).toEqual({ a1: ["a1", "a1b"], a1b: ["a1", "a1b"] });
    // Again: a third sibling, oldest first.
    view = applyFrames(view, [
      started("t4", "u1"),
      msg(row("a1c", "assistant", "third", "u1", true)),
      done(),
    ]);
    expect(view.siblings.a1).toEqual(["a1", "a1b", "a1c"]);
    expect(view.siblings.a1c).toEqual(["a1", "a1b", "a1c"]);
  });

  it("an edit (a user message after an earlier answer) drops the old branch's turns; the edited message gets a sibling", () => {
    const frames = [
      ...turn("u1", "a1", null, "one"),
      ...turn("u2", "a2", "a1", "two"),
      ...turn("u3", "a3", "a2", "three"),
    ];
    let view = applyFrames(emptyThread(T), frames);
    view = applyFrames(view, turn("u2b", "a2b", "a1", "two, edited"));
    expect(view.turns.map((t) => t.userMessageId)).toEqual(["u1", "u2b"]);
    expect(view.siblings).toEqual({ u2: ["u2", "u2b"], u2b: ["u2", "u2b"] });
    // An edit of the first message (parent null) leaves only itself.
    view = applyFrames(view, turn("u1b", "a1x", null, "one, edited"));
    expect(view.turns.map((t) => t.userMessageId)).toEqual(["u1b"]);
    expect(view.siblings.u1b).toEqual(["u1", "u1b"]);
  });

  it("a linear message (parent = the last answer) and a resume replay of the last turn cut nothing", () => {
    const frames = [...turn("u1", "a1", null, "one"), ...turn("u2", "a2", "a1", "two")];
    const view = applyFrames(emptyThread(T), frames);
    // A resume replays the last turn from its start (a new socket): same rows, same turns.
    const replayed = reduceFrames(frames.slice(5), view);
    expect(replayed.turns.map((t) => t.userMessageId)).toEqual(["u1", "u2"]);
    expect(replayed.siblings).toEqual({});
  });

  it("HTTP rows: siblings from sibling_ids, the queue from GET queue", () => {
    const rows = [
      { ...row("u1", "user", "one", null), sibling_ids: ["u1", "u1b"] },
      row("a1", "assistant", "re", "u1", true),
      { ...row("u2", "user", "two", "a1") },
      { ...row("a2", "assistant", "re", "u2", true), sibling_ids: ["a2x", "a2"] },
    ];
    expect(siblingsFrom(rows)).toEqual({ u1: ["u1", "u1b"], a2: ["a2x", "a2"] });
    expect(
      queuedFrom([
        { message_id: "q2", thread_id: T, content: "later", mode: "queue", position: 2, created_at: at },
        {
          message_id: "q1",
          thread_id: T,
          content: [{ type: "text", text: "next" }],
          mode: "steer",
          position: 1,
          created_at: at,
        },
      ]),
    ).toEqual([
      { messageId: "q1", content: "next", mode: "steer", position: 1 },
      { messageId: "q2", content: "later", mode: "queue", position: 2 },
    ]);
  });

  it("a view from history gains a live regenerate's sibling on top of the stored ones", () => {
    const rows = [
      row("u1", "user", "one", null),
      { ...row("a1b", "assistant", "b", "u1", true), sibling_ids: ["a1", "a1b"] },
    ];
    const history: ThreadView = {
      ...emptyThread(T),
      siblings: siblingsFrom(rows),
      turns: [
        {
          ...emptyTurn("h", "history"),
          user: { id: "u1", text: "one" },
          userMessageId: "u1",
          answerMessageId: "a1b",
          firstAnswerId: "a1b",
          settled: true,
        },
      ],
    };
    const view = applyFrames(history, [
      started("t9", "u1"),
      msg(row("a1c", "assistant", "c", "u1", true)),
      done(),
    ]);
    expect(view.siblings.a1c).toEqual(["a1", "a1b", "a1c"]);
    expect(view.turns).toHaveLength(1);
    expect(view.turns[0]?.source).toBe("live");
  });
});
