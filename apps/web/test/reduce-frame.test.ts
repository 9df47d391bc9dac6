import { applyFrames, reduceFrames } from "@agentwire-chat/client";
import { describe, expect, it } from "vitest";
import { emptyThread } from "../src/state/thread-view.js";
import { phaseOf } from "../src/ui/agent-status.js";
import {
  budgetTurn,
  chunk,
  done,
  nestedTurn,
  plainToolTurn,
  row,
  stamp,
  toolEnd,
  toolStart,
} from "./fixtures.js";
import { shape } from "./shape.js";

describe("reduceFrame", () => {
  it("turns the documented (recorded) example into text, one card and usage", () => {
    const view = applyFrames(emptyThread(), plainToolTurn());
    expect(view.threadId).toBe("th_1");
    expect(view.title).toBe("What's in notes.txt?");
    // Seq 3 is the turn's turn_started.
    expect(view.lastSeq).toBe(16);
    expect(view.turns).toHaveLength(1);
    const turn = view.turns[0]!;
    expect(turn.user).toEqual({ id: "m_1", text: "What's in notes.txt?" });
    expect(shape(turn)).toEqual([
      "Let me look.",
      { card: "read_file#call_1", status: "complete", depth: 0, children: [] },
      "It says: buy milk.",
    ]);
    expect(turn.cards.call_1).toMatchObject({
      argsPreview: '{"path":"notes.txt"}',
      resultPreview: '{"path":"notes.txt","bytes":9,"content":"buy milk\\n"}',
      durationMs: 1,
    });
    expect(turn.usage).toMatchObject({ input_tokens: 850, output_tokens: 27, llm_calls: 2, tool_calls: 1 });
    expect(turn.running).toBe(false);
    expect(turn.state).toBe("idle");
  });

  it("shows a running card and the agent state mid-turn", () => {
    // Up to the read_file call's start (seq 8): executing, the card running.
    const view = applyFrames(emptyThread(), plainToolTurn().slice(0, 8));
    const turn = view.turns[0]!;
    expect(turn.running).toBe(true);
    expect(turn.state).toBe("executing");
    expect(turn.stateDetail).toBe("read_file");
    expect(turn.cards.call_1?.status).toBe("running");
  });

  it("nests parallel subtasks' text and cards in their run_subtask containers while they run", () => {
    // Up to the end of b1: both subtasks still run.
    const turn = applyFrames(emptyThread(), nestedTurn().slice(0, 10)).turns[0]!;
    expect(shape(turn)).toEqual([
      "Splitting the work.",
      {
        card: "run_subtask#s1",
        title: "Prices A",
        status: "running",
        depth: 0,
        children: [
          "Looking up A",
          { card: "web_fetch#a1", status: "running", depth: 1, children: [] },
          " now.",
        ],
      },
      {
        card: "run_subtask#s2",
        title: "Prices B",
        status: "running",
        depth: 0,
        children: ["Looking up B", { card: "web_fetch#b1", status: "error", depth: 1, children: [] }],
      },
    ]);
    expect(turn.cards.b1?.resultPreview).toBe("boom");
  });

  it("keeps only a subtask's cards and result once it ended: its text is not shown twice", () => {
    const frames = nestedTurn();
    const endOfS1 = frames.findIndex(
      (f) => f.type === "tool_call_update" && f.tool_call_id === "s1" && f.status === "end",
    );
    let turn = applyFrames(emptyThread(), frames.slice(0, endOfS1 + 1)).turns[0]!;
    expect(turn.cards.s1?.children).toEqual([{ kind: "card", id: "a1" }]);
    expect(turn.cards.s1?.resultPreview).toBe("A: 3");
    // s2 still runs: its text stays until it ends.
    expect(turn.cards.s2?.children[0]).toMatchObject({ kind: "text", text: "Looking up B" });
    turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(shape(turn)).toEqual([
      "Splitting the work.",
      {
        card: "run_subtask#s1",
        title: "Prices A",
        status: "complete",
        depth: 0,
        children: [{ card: "web_fetch#a1", status: "complete", depth: 1, children: [] }],
      },
      {
        card: "run_subtask#s2",
        title: "Prices B",
        status: "complete",
        depth: 0,
        children: [{ card: "web_fetch#b1", status: "error", depth: 1, children: [] }],
      },
      "A is cheaper.",
    ]);
  });

  it("shows a subtask the budget refused as refused and one it cut short as stopped, not as failures", () => {
    const turn = applyFrames(emptyThread(), budgetTurn()).turns[0]!;
    expect(turn.cards.B?.status).toBe("refused");
    expect(turn.cards.A?.status).toBe("stopped");
    // Cut short: what it wrote is the answer so far, and it stays (a subtask that ended by itself drops it).
    expect(turn.cards.A?.children).toEqual([
      { kind: "text", key: "A:0", text: "Starting A.", thinking: false },
    ]);
    expect(turn.budget).toEqual({ reason: "subtasks", limit: 1, observed: 2 });
  });

  it("puts an approval prompt where it came up, before the text that follows it", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u", role: "user", content: "write" }) },
      toolStart("w1", "save_note", { path: "n.txt" }),
      {
        type: "tool_approval_request",
        approval_id: "ap1",
        tool_name: "save_note",
        permission_class: "workspace_write",
        args: { path: "n.txt" },
      },
      toolEnd("w1", "save_note", "saved"),
      chunk("Saved."),
      done(),
    ]);
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(shape(turn)).toEqual([
      { card: "save_note#w1", status: "complete", depth: 0, children: [] },
      { approval: "ap1" },
      "Saved.",
    ]);
  });

  it("says writing while answer text streams, thinking while it reasons, and drops both on the next step", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u", role: "user", content: "go" }) },
      { type: "agent_state", state: "thinking" },
    ]);
    let view = applyFrames(emptyThread(), frames);
    expect(phaseOf(view.turns[0])).toBe("thinking");
    view = applyFrames(
      view,
      stamp("th_1", 3, [{ type: "chunk", content: "hmm", thinking: true, parent_id: null, depth: 0 }]),
    );
    expect(phaseOf(view.turns[0])).toBe("reasoning");
    view = applyFrames(view, stamp("th_1", 4, [chunk("Let me look.")]));
    expect(phaseOf(view.turns[0])).toBe("writing");
    view = applyFrames(view, stamp("th_1", 5, [toolStart("c1", "read_file", { path: "x" })]));
    expect(phaseOf(view.turns[0])).toBe("thinking");
    view = applyFrames(view, stamp("th_1", 6, [{ type: "agent_state", state: "executing" }]));
    expect(phaseOf(view.turns[0])).toBe("executing");
    view = applyFrames(view, stamp("th_1", 7, [chunk("sub text", "c1", 1)]));
    expect(phaseOf(view.turns[0])).toBe("writing");
    view = applyFrames(view, stamp("th_1", 8, [{ type: "agent_state", state: "waiting_on_user" }]));
    expect(phaseOf(view.turns[0])).toBe("waiting_user");
    view = applyFrames(view, stamp("th_1", 9, [done()]));
    expect(phaseOf(view.turns[0])).toBe("idle");
    expect(view.turns[0]!.activity).toBeUndefined();
  });

  it("says queued while the server holds the turn back, then thinking once it starts", () => {
    let view = applyFrames(
      emptyThread(),
      stamp("th_1", 1, [
        { type: "message", message: row({ id: "u", role: "user", content: "go" }) },
        { type: "agent_state", state: "queued" },
      ]),
    );
    expect(phaseOf(view.turns[0])).toBe("queued");
    view = applyFrames(view, stamp("th_1", 3, [{ type: "agent_state", state: "thinking" }]));
    expect(phaseOf(view.turns[0])).toBe("thinking");
  });

  it("keeps a subtask card at its place when a child arrives before it (damaged stream)", () => {
    const frames = stamp("th_1", 1, [
      chunk("early", "s9", 1),
      toolStart("s9", "run_subtask", { title: "Late" }),
    ]);
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(shape(turn)).toEqual([
      { card: "run_subtask#s9", title: "Late", status: "running", depth: 0, children: ["early"] },
    ]);
  });

  it("creates a card from an end without a start", () => {
    const turn = reduceFrames(stamp("th_1", 1, [toolEnd("c", "grep", "x", null, 0, { is_error: true })]))
      .turns[0]!;
    expect(turn.cards.c).toMatchObject({ name: "grep", status: "error", resultPreview: "x" });
  });

  it("resolves a question when its tool call ends, and approvals when waiting ends", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u", role: "user", content: "go" }) },
      toolStart("q1", "ask_user", { question: "Which file?" }),
      { type: "question", tool_call_id: "q1", question: "Which file?" },
      { type: "agent_state", state: "waiting_on_user" },
    ]);
    let view = applyFrames(emptyThread(), frames);
    expect(view.turns[0]!.questions).toEqual([
      { toolCallId: "q1", question: "Which file?", resolved: false },
    ]);
    view = applyFrames(
      view,
      stamp("th_1", 5, [
        toolEnd("q1", "ask_user", "a.txt"),
        {
          type: "tool_approval_request",
          approval_id: "ap1",
          tool_name: "write_file",
          permission_class: "write",
          args: { path: "a.txt" },
        },
        { type: "agent_state", state: "waiting_on_user" },
      ]),
    );
    expect(view.turns[0]!.questions[0]!.resolved).toBe(true);
    expect(view.turns[0]!.approvals[0]).toMatchObject({
      approvalId: "ap1",
      toolName: "write_file",
      resolved: false,
    });
    view = applyFrames(
      view,
      stamp("th_1", 8, [{ type: "agent_state", state: "executing", detail: "write_file" }]),
    );
    expect(view.turns[0]!.approvals[0]!.resolved).toBe(true);
  });

  it("records budget, stop and errors, and ends the turn on done", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u", role: "user", content: "go" }) },
      chunk("partial"),
      toolStart("c1", "web_fetch", { url: "https://x" }),
      { type: "budget_exceeded", reason: "tool_calls", limit: 20, observed: 21 },
      { type: "generation_stopped" },
      {
        type: "message",
        message: row({ id: "a", role: "assistant", content: "partial", status: "stopped" }),
      },
      done(),
    ]);
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(turn.budget).toEqual({ reason: "tool_calls", limit: 20, observed: 21 });
    expect(turn.stopped).toBe(true);
    expect(turn.running).toBe(false);
    // A card that never got its end is not left spinning after the turn.
    expect(turn.cards.c1?.status).toBe("complete");
  });

  it("keeps a turn the server continued after a restart running: the cut call's interrupted row ended nothing", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u", role: "user", content: "go" }) },
      chunk("Half an"),
      {
        type: "message",
        message: row({ id: "a", role: "assistant", content: "Half an", status: "interrupted" }),
      },
      { type: "agent_state", state: "resumed", detail: "the server restarted" },
      chunk("Whole answer."),
    ]);
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(turn.errors).toEqual([]);
    expect(turn.running).toBe(true);
    expect(turn.state).toBe("resumed");
  });

  it("tracks client tool calls until their tool call ends", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u", role: "user", content: "draw" }) },
      { type: "tool_call", tool_call_id: "ui1", name: "ui_notify", args: { message: "hi" } },
    ]);
    let view = applyFrames(emptyThread(), frames);
    expect(view.turns[0]!.clientCalls.ui1).toEqual({
      id: "ui1",
      name: "ui_notify",
      args: { message: "hi" },
      done: false,
    });
    view = applyFrames(view, stamp("th_1", 3, [toolEnd("ui1", "ui_notify", { ok: true })]));
    expect(view.turns[0]!.clientCalls.ui1?.done).toBe(true);
  });

  it("marks a running turn interrupted when the resume says the server lost it", () => {
    let view = applyFrames(emptyThread(), nestedTurn().slice(0, 4));
    view = applyFrames(view, [
      { type: "chat_resumed", thread_id: "th_1", status: "interrupted", last_seq: 4, replayed: 0 },
    ]);
    expect(view.turns[0]!.running).toBe(false);
    expect(view.turns[0]!.errors).toEqual(["turn interrupted"]);
  });

  it("notes an error after a finished turn without starting a new one", () => {
    let view = applyFrames(emptyThread(), plainToolTurn());
    view = applyFrames(view, [{ type: "error", code: "busy", message: "a turn runs", thread_id: "th_1" }]);
    expect(view.turns).toHaveLength(1);
    expect(view.turns[0]!.errors).toEqual(["busy: a turn runs"]);
    expect(view.turns[0]!.running).toBe(false);
  });

  it("adds a second turn on the next user message", () => {
    const second = stamp("th_1", 17, [
      { type: "message", message: row({ id: "m_9", role: "user", content: "thanks" }) },
      chunk("You're welcome."),
      done(),
    ]);
    const view = applyFrames(emptyThread(), [...plainToolTurn(), ...second]);
    expect(view.turns.map((t) => t.user?.text)).toEqual(["What's in notes.txt?", "thanks"]);
    expect(shape(view.turns[1]!)).toEqual(["You're welcome."]);
    expect(view.lastSeq).toBe(19);
  });

  it("renders done only at depth 0 as the end of the turn", () => {
    const frames = stamp("th_1", 1, [
      toolStart("s", "run_subtask", { title: "t" }),
      { type: "chunk", content: "", done: true, parent_id: "s", depth: 1 },
    ]);
    expect(applyFrames(emptyThread(), frames).turns[0]!.running).toBe(true);
  });
});

describe("chunk merging", () => {
  it("keeps thinking text apart from answer text", () => {
    const frames = stamp("th_1", 1, [
      { type: "chunk", content: "hmm", thinking: true, parent_id: null, depth: 0 },
      { type: "chunk", content: " ok", thinking: true, parent_id: null, depth: 0 },
      chunk("Answer"),
    ]);
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(turn.root).toEqual([
      { kind: "text", key: "root:0", text: "hmm ok", thinking: true },
      { kind: "text", key: "root:1", text: "Answer", thinking: false },
    ]);
  });

  it("drops reasoning when the turn ends: it is not stored, so a reload would not show it", () => {
    const frames = stamp("th_1", 1, [
      { type: "chunk", content: "hmm", thinking: true, parent_id: null, depth: 0 },
      chunk("Answer"),
      done(),
    ]);
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(turn.root).toEqual([{ kind: "text", key: "root:1", text: "Answer", thinking: false }]);
  });
});
