import type { ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { renderFrame } from "../src/chat/render-frame.js";
import { initialTurnState } from "../src/chat/turn-state.js";

const render = (frames: ServerFrame[]) => {
  const state = initialTurnState(0);
  return frames.map((f) => renderFrame(f, state, { verbose: false, live: false }, 0)).join("");
};
const update = (message: string, depth = 0, parent_id: string | null = null) =>
  ({ type: "progress_update", tool_call_id: "u", message, parent_id, depth }) as ServerFrame;
const call = (status: "start" | "end", extra: object = {}) =>
  ({
    type: "tool_call_update",
    tool_call_id: "u",
    name: "send_update",
    status,
    parent_id: null,
    depth: 0,
    ...extra,
  }) as ServerFrame;

describe("progress_update in the CLI", () => {
  it("prints the message as one › line in place of the send_update call's lines", () => {
    const out = render([
      { type: "chunk", content: "Starting", parent_id: null, depth: 0 } as ServerFrame,
      call("start", { args: { message: "Read 3 of 5 files." } }),
      update("Read 3 of 5 files."),
      call("end", { result: "sent" }),
    ]);
    expect(out).toBe("Starting\n› Read 3 of 5 files.\n");
  });

  it("indents a nested update and strips control characters", () => {
    expect(render([update("half\u001b[2J way", 1, "s1")])).toBe("  › half way\n");
  });

  it("still shows a failed send_update call", () => {
    expect(render([call("start"), call("end", { is_error: true, result: "invalid arguments" })])).toContain(
      "✗ send_update",
    );
  });
});
