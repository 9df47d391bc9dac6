import { applyFrames, progressFrom } from "@agentwire-chat/client";
import { describe, expect, it } from "vitest";
import { threadFromHistory } from "../src/state/rebuild-from-history.js";
import { emptyThread } from "../src/state/thread-view.js";
import { chunk, done, row, stamp, toolEnd, toolStart } from "./fixtures.js";
import { shape } from "./shape.js";

describe("progress updates", () => {
  it("puts each send_update in order with the text, with its message", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u1", role: "user", content: "Long task" }) },
      chunk("Starting."),
      toolStart("su1", "send_update", { message: "Half way there." }),
      {
        type: "progress_update",
        tool_call_id: "su1",
        message: "Half way there.",
        parent_id: null,
        depth: 0,
      },
      toolEnd("su1", "send_update", "sent"),
      chunk("Finished."),
      done(),
    ]);
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(shape(turn)).toEqual([
      "Starting.",
      { card: "send_update#su1", status: "complete", depth: 0, children: [] },
      "Finished.",
    ]);
    expect(turn.cards.su1?.progress).toBe("Half way there.");
  });

  it("shows a progress_update whose call start never came (a damaged stream)", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u1", role: "user", content: "Long task" }) },
      { type: "progress_update", tool_call_id: "su9", message: "Still going.", parent_id: null, depth: 0 },
    ]);
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(turn.cards.su9).toMatchObject({ name: "send_update", progress: "Still going." });
    expect(turn.root).toEqual([{ kind: "card", id: "su9" }]);
  });

  it("rebuilds progress lines after a reload, from the stored call's whole arguments", () => {
    const long = `Checked ${"many ".repeat(60)}files.`;
    const view = threadFromHistory("th_1", [
      row({ id: "u1", role: "user", content: "Long task" }),
      row({
        id: "a1",
        role: "assistant",
        content: "Starting.",
        tool_calls: [{ id: "su1", name: "send_update", args: { message: long } }],
      }),
      row({ id: "t1", role: "tool", tool_call_id: "su1", content: "sent" }),
      row({
        id: "a2",
        role: "assistant",
        content: "Finished.",
        execution_tree: {
          version: 1,
          nodes: [
            {
              id: "su1",
              parent_id: null,
              name: "send_update",
              args_preview: JSON.stringify({ message: long }).slice(0, 120),
              result_preview: "sent",
              duration_ms: 1,
            },
          ],
        },
      }),
    ]);
    const turn = view.turns[0]!;
    expect(turn.cards.su1?.progress).toBe(long);
    expect(shape(turn)).toEqual([
      "Starting.",
      { card: "send_update#su1", status: "complete", depth: 0, children: [] },
      "Finished.",
    ]);
  });

  it("reads the message out of a cut preview, not the braces", () => {
    expect(progressFrom('{"message":"Half \\"way\\" there, and mo')).toBe('Half "way" there, and mo');
    expect(progressFrom({ message: "ok" })).toBe("ok");
    expect(progressFrom("plain text")).toBe("plain text");
  });
});
