import { describe, expect, it } from "vitest";
import {
  ActiveTurnStatus,
  AgentState,
  AgentStateName,
  agentStateFromWire,
  agentStateOnWire,
  ChatResumedFrame,
  chatResumedStatusFromWire,
  chatResumedStatusOnWire,
  EndedTurnStatus,
  JobUpdateFrame,
  jobStatusFromWire,
  jobStatusOnWire,
  NodeStatus,
  NodeUpdateFrame,
  nodeStatusFromWire,
  nodeStatusOnWire,
  ThreadLiveState,
  ThreadTurnState,
  TurnStatus,
  threadListingFromWire,
  threadLiveStateFromWire,
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

describe("every wire word read in turn words and written back is the same word", () => {
  it("thread_state and GET /api/threads: the live state", () => {
    for (const w of ThreadLiveState.options) {
      expect(ThreadTurnState.parse(threadLiveStateFromWire(w))).toBe(threadLiveStateFromWire(w));
      expect(threadLiveStateOnWire(threadLiveStateFromWire(w))).toBe(w);
    }
    expect(threadLiveStateFromWire("waiting_on_user")).toBe("waiting_user");
  });

  it("GET /api/threads: a row keeps every field, its state in turn words", () => {
    const row = { id: "t1", title: "T", created_at: "a", updated_at: "b", question: "Which?" };
    expect(threadListingFromWire({ ...row, state: "waiting_on_user" })).toEqual({
      ...row,
      state: "waiting_user",
    });
    expect(threadListingFromWire(row)).toEqual(row);
  });

  it("agent_state: every state", () => {
    for (const w of AgentStateName.options) {
      expect(AgentState.parse(agentStateFromWire(w))).toBe(agentStateFromWire(w));
      expect(agentStateOnWire(agentStateFromWire(w))).toBe(w);
    }
    expect(agentStateFromWire("waiting_on_user")).toBe("waiting_user");
    expect(AgentState.options).not.toContain("waiting_on_user");
  });

  it("chat_resumed: finished reads as complete, unknown as no turn", () => {
    for (const w of ChatResumedFrame.shape.status.options)
      expect(chatResumedStatusOnWire(chatResumedStatusFromWire(w))).toBe(w);
    expect(chatResumedStatusFromWire("finished")).toBe("complete");
    expect(chatResumedStatusFromWire("unknown")).toBeUndefined();
  });

  it("job_update: completed, failed and cancelled read as complete, error and stopped", () => {
    const read = JobUpdateFrame.shape.status.options.map((w) => [w, jobStatusFromWire(w)]);
    expect(read).toEqual([
      ["running", "running"],
      ["completed", "complete"],
      ["failed", "error"],
      ["cancelled", "stopped"],
    ]);
    for (const w of JobUpdateFrame.shape.status.options)
      expect(jobStatusOnWire(jobStatusFromWire(w))).toBe(w);
  });

  it("node_update: every status, skipped as it is", () => {
    for (const w of NodeUpdateFrame.shape.status.options) {
      expect(NodeStatus.parse(nodeStatusFromWire(w))).toBe(nodeStatusFromWire(w));
      expect(nodeStatusOnWire(nodeStatusFromWire(w))).toBe(w);
    }
    expect(NodeStatus.options).toEqual(["running", "complete", "error", "stopped", "skipped"]);
  });
});
