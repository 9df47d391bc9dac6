import { applyFrames, PREVIEW_CHARS, titleFrom } from "@agentwire-chat/client";
import { preview } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import {
  answerQuestion,
  decideApproval,
  failRequest,
  markClientCallDone,
  startLocalTurn,
} from "../src/state/local-actions.js";
import { emptyThread, isRunning } from "../src/state/thread-view.js";
import { plainToolTurn, row, stamp } from "./fixtures.js";

describe("local actions", () => {
  it("shows the sent message at once and keeps that turn when the server confirms it", () => {
    let view = startLocalTurn(emptyThread(), "r1", "What's in notes.txt?");
    expect(isRunning(view)).toBe(true);
    expect(view.turns[0]!.user).toEqual({ text: "What's in notes.txt?" });
    view = applyFrames(view, plainToolTurn());
    expect(view.turns).toHaveLength(1);
    expect(view.turns[0]!.key).toBe("r:r1");
    expect(view.turns[0]!.user?.id).toBe("m_1");
    expect(isRunning(view)).toBe(false);
  });

  it("ends a refused turn with the server's reason", () => {
    let view = startLocalTurn(emptyThread(), "r1", "hi");
    view = failRequest(view, "r1", "bad_request: data.provider: unknown provider");
    expect(isRunning(view)).toBe(false);
    expect(view.turns[0]!.errors).toEqual(["bad_request: data.provider: unknown provider"]);
  });

  it("records answers, decisions and client tool results on the current turn", () => {
    let view = applyFrames(
      emptyThread(),
      stamp("th_1", 1, [
        { type: "message", message: row({ id: "u", role: "user", content: "go" }) },
        { type: "question", tool_call_id: "q", question: "Name?" },
        {
          type: "tool_approval_request",
          approval_id: "ap",
          tool_name: "shell",
          permission_class: "exec",
          args: "ls",
        },
        { type: "tool_call", tool_call_id: "ui", name: "ui_notify", args: {} },
      ]),
    );
    view = answerQuestion(view, "q", "Ada");
    view = decideApproval(view, "ap", "allow_for_thread");
    view = markClientCallDone(view, "ui");
    const turn = view.turns[0]!;
    expect(turn.questions[0]).toEqual({ toolCallId: "q", question: "Name?", answer: "Ada", resolved: true });
    expect(turn.approvals[0]).toMatchObject({
      decision: "allow_for_thread",
      resolved: true,
      argsPreview: "ls",
    });
    expect(turn.clientCalls.ui?.done).toBe(true);
    // A replay of the same frames does not bring the question back.
    expect(
      applyFrames(view, stamp("th_1", 1, [{ type: "question", tool_call_id: "q", question: "Name?" }])),
    ).toBe(view);
  });
});

describe("previews", () => {
  it("is one bounded line", () => {
    expect(preview({ a: "x\n  y" }, PREVIEW_CHARS)).toBe('{"a":"x\\n y"}');
    expect(preview("a\n\n b", PREVIEW_CHARS)).toBe("a b");
    expect(preview("x".repeat(300), PREVIEW_CHARS)).toHaveLength(140);
    expect(preview(undefined, PREVIEW_CHARS)).toBe("");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(preview(cyclic, PREVIEW_CHARS)).toBe("[object Object]");
  });

  it("takes a subtask title from the frame, else from args", () => {
    expect(titleFrom("T", { title: "A" })).toBe("T");
    expect(titleFrom(undefined, { title: "A" })).toBe("A");
    expect(titleFrom(undefined, { title: 3 })).toBeUndefined();
    expect(titleFrom(undefined, "x")).toBeUndefined();
  });
});
