import { describe, expect, it } from "vitest";
import {
  ActiveTurnStatus,
  ChatResumedFrame,
  chatResumedStatusOnWire,
  EndedTurnStatus,
  JobUpdateFrame,
  jobStatusOnWire,
  ThreadLiveState,
  ThreadTurnState,
  TurnStatus,
  threadLiveStateOnWire,
} from "../src/index.js";

describe("turn statuses on the wire", () => {
  it("a thread's live state keeps the wire's waiting_on_user; every word it sends is a ThreadLiveState", () => {
    expect(ThreadTurnState.options.map((s) => [s, threadLiveStateOnWire(s)])).toEqual([
      ["running", "running"],
      ["waiting_user", "waiting_on_user"],
      ["idle", "idle"],
    ]);
    for (const s of ThreadTurnState.options)
      expect(ThreadLiveState.parse(threadLiveStateOnWire(s))).toBe(threadLiveStateOnWire(s));
  });

  it("chat_resumed says running, waiting_on_user, interrupted, unknown, and finished for every other end", () => {
    const wire = Object.fromEntries(
      [...TurnStatus.options, undefined].map((s) => [String(s), chatResumedStatusOnWire(s)]),
    );
    expect(wire).toEqual({
      running: "running",
      waiting_user: "waiting_on_user",
      complete: "finished",
      stopped: "finished",
      budget_exceeded: "finished",
      iteration_limit: "finished",
      error: "finished",
      interrupted: "interrupted",
      undefined: "unknown",
    });
    const status = ChatResumedFrame.shape.status;
    for (const s of Object.values(wire)) expect(status.parse(s)).toBe(s);
  });

  it("job_update keeps completed, failed and cancelled for a run's turn words", () => {
    const wire = Object.fromEntries(
      (["running", ...EndedTurnStatus.options] as const).map((s) => [s, jobStatusOnWire(s)]),
    );
    expect(wire).toEqual({
      running: "running",
      complete: "completed",
      stopped: "cancelled",
      interrupted: "cancelled",
      budget_exceeded: "failed",
      iteration_limit: "failed",
      error: "failed",
    });
    const status = JobUpdateFrame.shape.status;
    for (const s of Object.values(wire)) expect(status.parse(s)).toBe(s);
  });

  it("the active and ended statuses split TurnStatus exactly", () => {
    expect([...ActiveTurnStatus.options, ...EndedTurnStatus.options].sort()).toEqual(
      [...TurnStatus.options].sort(),
    );
  });
});
