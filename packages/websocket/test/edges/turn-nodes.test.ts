import type { ServerFrameOf } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { TurnNodes } from "../../src/edges/turn-nodes.js";

type Update = ServerFrameOf<"tool_call_update">;

/** A root call's `tool_call_update` of the given status. */
function update(status: Update["status"], id: string, name: string, extra: Partial<Update> = {}): Update {
  return { type: "tool_call_update", tool_call_id: id, name, status, parent_id: null, depth: 0, ...extra };
}

const start = (id: string, name: string, extra?: Partial<Update>) => update("start", id, name, extra);
const end = (id: string, name: string, extra?: Partial<Update>) => update("end", id, name, extra);

describe("TurnNodes, the turn's tool-call nodes the edges share", () => {
  it("keeps a node from its start, its streamed text and its end", () => {
    const nodes = new TurnNodes();
    nodes.start(start("sub", "run_subtask", { title: "Part A", args: { task: "a" } }));
    nodes.start(start("inner", "web_fetch", { parent_id: "sub", depth: 1 }));
    nodes.appendText("sub", "result-");
    nodes.appendText("sub", "A");
    expect(nodes.end(end("inner", "web_fetch", { parent_id: "sub", depth: 1, is_error: true }))?.status).toBe(
      "error",
    );
    expect(nodes.end(end("sub", "run_subtask"))).toEqual({
      id: "sub",
      parent_id: null,
      depth: 0,
      name: "run_subtask",
      title: "Part A",
      args: { task: "a" },
      status: "complete",
      text: "result-A",
    });
    expect(nodes.get("inner")).toMatchObject({ parent_id: "sub", depth: 1, status: "error", text: "" });
    expect(nodes.size).toBe(2);
  });

  it("knows nothing of a node it never saw start, until one is adopted", () => {
    const nodes = new TurnNodes();
    expect(nodes.appendText("gone", "x")).toBeUndefined();
    expect(nodes.end(end("gone", "ask_user"))).toBeUndefined();
    expect(nodes.size).toBe(0);
    nodes.adopt("gone", null, 0, "ask_user");
    expect(nodes.appendText("gone", "x")?.text).toBe("x");
    expect(nodes.end(end("gone", "ask_user"))).toEqual({
      id: "gone",
      parent_id: null,
      depth: 0,
      name: "ask_user",
      status: "complete",
      text: "x",
    });
  });

  it("names the latest started call of a tool that still runs", () => {
    const nodes = new TurnNodes();
    nodes.start(start("a", "shell"));
    nodes.start(start("b", "shell"));
    nodes.start(start("c", "web_fetch"));
    expect(nodes.latestRunning("shell")?.id).toBe("b");
    nodes.end(end("b", "shell"));
    expect(nodes.latestRunning("shell")?.id).toBe("a");
    expect(nodes.running("b")).toBeUndefined();
    // Ended and started again: now the latest; a running call started again keeps its place.
    nodes.start(start("b", "shell"));
    nodes.start(start("a", "shell"));
    expect(nodes.latestRunning("shell")?.id).toBe("b");
    expect(nodes.running("a")?.text).toBe("");
    expect(nodes.latestRunning("read_file")).toBeUndefined();
  });
});
