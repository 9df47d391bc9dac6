import { applyFrames } from "@agentwire-chat/client";
import { describe, expect, it } from "vitest";
import { threadFromHistory, turnFromRows } from "../src/state/rebuild-from-history.js";
import { emptyThread } from "../src/state/thread-view.js";
import { countCards, usageLine } from "../src/ui/usage-line.js";
import {
  askTurn,
  budgetTurn,
  chunk,
  done,
  nestedRows,
  nestedTree,
  nestedTurn,
  row,
  stamp,
  usage,
} from "./fixtures.js";
import { shape } from "./shape.js";

describe("threadFromHistory", () => {
  it("rebuilds the finished live turn from execution_tree: the same cards, results and text", () => {
    const live = applyFrames(threadFromHistory("th_1", []), nestedTurn()).turns[0]!;
    const history = threadFromHistory("th_1", nestedRows()).turns[0]!;
    // Subtask text included: a finished live subtask keeps none either.
    expect(shape(history)).toEqual(shape(live));
    for (const id of ["s1", "s2", "a1", "b1"]) {
      expect(history.cards[id]?.resultPreview).toBe(live.cards[id]?.resultPreview);
      expect(history.cards[id]?.status).toBe(live.cards[id]?.status);
    }
    expect(history.usage).toEqual(live.usage);
    expect(history.source).toBe("history");
    expect(history.running).toBe(false);
    expect(history.usage).toEqual(usage);
    expect(history.cards.a1).toMatchObject({
      parentId: "s1",
      depth: 1,
      argsPreview: '{"url":"https://a.example"}',
      resultPreview: "3",
      durationMs: 4,
    });
    expect(history.cards.b1?.status).toBe("error");
  });

  it("splits rows into turns at each user message", () => {
    const view = threadFromHistory("th_1", [
      ...nestedRows(),
      row({ id: "u2", role: "user", content: [{ type: "text", text: "and C?" }] }),
      row({ id: "a3", role: "assistant", content: "No data for C.", status: "budget_exceeded" }),
    ]);
    expect(view.turns.map((t) => t.user?.text)).toEqual(["Compare A and B", "and C?"]);
    expect(shape(view.turns[1]!)).toEqual(["No data for C."]);
    expect(view.turns[1]!.budget).toEqual({ reason: "unknown" });
  });

  it("falls back to tool_calls and tool rows when no execution_tree was stored", () => {
    const turn = turnFromRows([
      row({ id: "u", role: "user", content: "read it" }),
      row({
        id: "a",
        role: "assistant",
        content: "Reading.",
        tool_calls: [{ id: "c1", name: "read_file", args: { path: "x" } }],
      }),
      row({ id: "t", role: "tool", tool_call_id: "c1", content: "denied", is_error: true }),
      row({ id: "a2", role: "assistant", content: "", status: "stopped" }),
    ]);
    expect(shape(turn)).toEqual([
      "Reading.",
      { card: "read_file#c1", status: "error", depth: 0, children: [] },
    ]);
    expect(turn.cards.c1?.resultPreview).toBe("denied");
    expect(turn.stopped).toBe(true);
  });

  it("places tree nodes no row mentions before the final text, children after parents", () => {
    const reversed = { version: 1 as const, nodes: [...nestedTree.nodes].reverse() };
    const turn = turnFromRows([
      row({ id: "u", role: "user", content: "go" }),
      row({ id: "a", role: "assistant", content: "Done.", execution_tree: reversed }),
    ]);
    expect(shape(turn)).toEqual([
      {
        card: "run_subtask#s2",
        title: "Prices B",
        status: "complete",
        depth: 0,
        children: [{ card: "web_fetch#b1", status: "error", depth: 1, children: [] }],
      },
      {
        card: "run_subtask#s1",
        title: "Prices A",
        status: "complete",
        depth: 0,
        children: [{ card: "web_fetch#a1", status: "complete", depth: 1, children: [] }],
      },
      "Done.",
    ]);
  });

  it("survives a cyclic tree", () => {
    const turn = turnFromRows([
      row({ id: "u", role: "user", content: "go" }),
      row({
        id: "a",
        role: "assistant",
        content: "x",
        execution_tree: {
          version: 1,
          nodes: [
            { id: "p", parent_id: "q", name: "run_subtask", duration_ms: 1 },
            { id: "q", parent_id: "p", name: "run_subtask", duration_ms: 1 },
          ],
        },
      }),
    ]);
    expect(Object.keys(turn.cards).sort()).toEqual(["p", "q"]);
  });
});

describe("a reload shows what the live page showed", () => {
  it("a refused and a cut-short subtask, and the usage line that counts them", () => {
    const frames = budgetTurn();
    const live = applyFrames(emptyThread(), frames).turns[0]!;
    const stored = frames.flatMap((f) => (f.type === "message" ? [f.message] : []));
    const history = threadFromHistory("th_b", stored).turns[0]!;
    expect(shape(history)).toEqual(shape(live));
    expect(history.cards.B?.status).toBe("refused");
    expect(history.cards.A?.status).toBe("stopped");
    const line = "tokens not reported · 2 model calls · 2 subtasks (1 refused)";
    expect(usageLine(live.usage, countCards(live))).toBe(line);
    expect(usageLine(history.usage, countCards(history))).toBe(line);
  });

  it("ask_user: the question and its answer, in place, from the card alone", () => {
    const { frames, rows } = askTurn();
    const live = applyFrames(emptyThread(), frames).turns[0]!;
    const history = threadFromHistory("th_q", rows).turns[0]!;
    expect(shape(live)).toEqual([
      { card: "ask_user#q1", status: "complete", depth: 0, children: [] },
      "You chose blue.",
    ]);
    expect(shape(history)).toEqual(shape(live));
    for (const turn of [live, history]) {
      expect(turn.cards.q1).toMatchObject({
        question: "Which colour?",
        resultPreview: "blue",
        status: "complete",
      });
    }
  });
});

describe("reopening a thread during a turn", () => {
  it("replaces the stored part of the turn with the full resume replay, once", () => {
    // Opened while the turn ran: only the user row and the first assistant row were stored.
    const stored = nestedRows().slice(0, 2);
    let view = threadFromHistory("th_1", [
      row({ id: "u0", role: "user", content: "hi" }),
      row({ id: "a0", role: "assistant", content: "Hello." }),
      ...stored,
    ]);
    expect(view.turns).toHaveLength(2);
    // resume_chat {last_seq: 0} replays the whole running turn, then live frames follow.
    view = applyFrames(view, nestedTurn(40));
    expect(view.turns).toHaveLength(2);
    expect(view.turns[0]!.source).toBe("history");
    const live = view.turns[1]!;
    expect(live.source).toBe("live");
    expect(shape(live)[0]).toBe("Splitting the work.");
    expect(live.cards.s1?.children).toEqual([{ kind: "card", id: "a1" }]);
    expect(shape(live)).toEqual(shape(threadFromHistory("th_1", nestedRows()).turns[0]!));
  });

  it("keeps a settled turn from history when a resume replays it, then applies live turns", () => {
    const loaded = threadFromHistory("th_1", nestedRows());
    expect(loaded.turns[0]!.settled).toBe(true);
    let view = applyFrames(loaded, nestedTurn(40));
    expect(view.turns).toEqual(loaded.turns);
    expect(view.skipping).toBeUndefined();
    expect(view.lastSeq).toBe(40 + nestedTurn().length - 1);
    view = applyFrames(view, [
      { type: "chat_resumed", thread_id: "th_1", status: "finished", last_seq: 57, replayed: 18 },
    ]);
    expect(view.turns).toEqual(loaded.turns);
    const next = stamp("th_1", 58, [
      { type: "message", message: row({ id: "u2", role: "user", content: "thanks" }) },
      chunk("Welcome."),
      done(),
    ]);
    view = applyFrames(view, next);
    expect(view.turns.map((t) => t.user?.text)).toEqual(["Compare A and B", "thanks"]);
  });

  it("stops skipping at chat_resumed when the replay had no end", () => {
    let view = applyFrames(threadFromHistory("th_1", nestedRows()), nestedTurn(40).slice(0, 5));
    expect(view.skipping).toBe("m_u");
    view = applyFrames(view, [
      { type: "chat_resumed", thread_id: "th_1", status: "interrupted", last_seq: 44, replayed: 5 },
    ]);
    expect(view.skipping).toBeUndefined();
    expect(view.turns[0]!.errors).toEqual([]);
  });
});
