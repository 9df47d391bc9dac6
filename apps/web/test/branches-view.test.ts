import { applyFrames } from "@agentwire-chat/client";
import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { offBranch, parentOf } from "../src/chat-controller.js";
import { threadFromHistory } from "../src/state/rebuild-from-history.js";
import { row } from "./fixtures.js";

const tree = { version: 1 as const, nodes: [] };

/** u1 → a1 → u2 → a2, where u1 has an edited sibling u1b and a2 a regenerated sibling a2b. */
function branchRows(): StoredMessage[] {
  return [
    row({ id: "u1", role: "user", content: "first", parent_message_id: null, sibling_ids: ["u1", "u1b"] }),
    row({
      id: "a1",
      role: "assistant",
      content: "answer one",
      parent_message_id: "u1",
      execution_tree: tree,
    }),
    row({ id: "u2", role: "user", content: "second", parent_message_id: "a1" }),
    row({
      id: "a2",
      role: "assistant",
      content: "answer two",
      parent_message_id: "u2",
      execution_tree: tree,
      sibling_ids: ["a2", "a2b"],
    }),
  ];
}

describe("a thread's branch rebuilt from its rows", () => {
  it("keeps sibling ids, each user message's parent, the answer ids an edit follows, and the queue", () => {
    const view = threadFromHistory("th_1", branchRows(), "T", [
      {
        message_id: "q2",
        thread_id: "th_1",
        content: "later",
        mode: "queue",
        position: 2,
        created_at: "2026-01-01T00:00:01Z",
      },
      {
        message_id: "q1",
        thread_id: "th_1",
        content: [{ type: "text", text: "next" }],
        mode: "steer",
        position: 1,
        created_at: "2026-01-01T00:00:00Z",
      },
    ]);
    expect(view.siblings).toEqual({ u1: ["u1", "u1b"], a2: ["a2", "a2b"] });
    expect(view.parents).toEqual({ u1: null, u2: "a1" });
    expect(view.turns.map((t) => [t.userMessageId, t.firstAnswerId, t.answerMessageId])).toEqual([
      ["u1", "a1", "a1"],
      ["u2", "a2", "a2"],
    ]);
    expect(view.queued).toEqual([
      { messageId: "q1", content: "next", mode: "steer", position: 1 },
      { messageId: "q2", content: "later", mode: "queue", position: 2 },
    ]);
    expect(parentOf(view, "u1")).toBeNull();
    expect(parentOf(view, "u2")).toBe("a1");
    expect(parentOf(view, "nope")).toBeUndefined();
  });

  it("without stored parents an edit follows the answer of the turn before", () => {
    const rows = branchRows().map(({ parent_message_id: _p, sibling_ids: _s, ...r }) => r);
    const view = threadFromHistory("th_1", rows);
    expect(view.siblings).toEqual({});
    expect(parentOf(view, "u1")).toBeNull();
    expect(parentOf(view, "u2")).toBe("a1");
  });

  it("skips the replay of a turn of another branch, not a turn that goes on from the branch shown", () => {
    const view = threadFromHistory("th_1", branchRows());
    const user = (id: string, parent: string | null): ServerFrame => ({
      type: "message",
      thread_id: "th_1",
      seq: 1,
      message: row({ id, role: "user", content: "x", parent_message_id: parent }),
    });
    // The other branch's newest turn (an edit of the first message) is what resume replays.
    expect(offBranch(view, user("u1b", null))).toBe(true);
    expect(offBranch(view, user("u9", "a1"))).toBe(true);
    // A new turn after the shown leaf is not.
    expect(offBranch(view, user("u3", "a2"))).toBe(false);
    // The shown turn's own replay is the reducer's (it is settled: skipped there).
    expect(offBranch(view, user("u2", "a1"))).toBe(false);
    // A regenerate's turn of a message shown (its answer already stored) or of another branch.
    expect(
      offBranch(view, {
        type: "turn_started",
        thread_id: "th_1",
        seq: 1,
        turn_id: "t",
        user_message_id: "u2",
      }),
    ).toBe(true);
    expect(
      offBranch(view, {
        type: "turn_started",
        thread_id: "th_1",
        seq: 1,
        turn_id: "t",
        user_message_id: "zz",
      }),
    ).toBe(true);
  });

  it("a skipped replay leaves the branch shown as it was", () => {
    const view = threadFromHistory("th_1", branchRows());
    const frames: ServerFrame[] = [
      { type: "chunk", thread_id: "th_1", seq: 2, content: "other", depth: 0, parent_id: null },
      { type: "chunk", thread_id: "th_1", seq: 3, content: "", depth: 0, parent_id: null, done: true },
    ];
    const after = applyFrames({ ...view, skipping: "off-branch" }, frames);
    expect(after.turns).toEqual(view.turns);
    expect(after.skipping).toBeUndefined();
  });
});
