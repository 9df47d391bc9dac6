import type { AgentState } from "./agent-state.js";
import type { ThreadLiveState, ThreadSummary } from "./message.js";
import type { AgentStateName, ChatResumedFrame, JobUpdateFrame, NodeUpdateFrame } from "./server-frames.js";
import type { EndedTurnStatus, NodeStatus, ThreadTurnState, TurnStatus } from "./turn-status.js";

// Clients depend on the words these frames have always carried; internally every one of them is a
// TurnStatus. This file is the only place the two vocabularies meet (docs/protocol.md, Turn status).
// Types only: the client SDK bundles it through its own subpath, without zod.

/** A `GET /api/threads` row with its live state in turn words. */
export type ThreadListing = Omit<ThreadSummary, "state"> & { state?: ThreadTurnState };

/** A thread's live state as `thread_state` and `GET /api/threads` send it (`waiting_on_user`). */
export function threadLiveStateOnWire(state: ThreadTurnState): ThreadLiveState {
  return state === "waiting_user" ? "waiting_on_user" : state;
}

/** A thread's live state as `thread_state` and `GET /api/threads` carry it, in turn words. */
export function threadLiveStateFromWire(state: ThreadLiveState): ThreadTurnState {
  return state === "waiting_on_user" ? "waiting_user" : state;
}

/** A `GET /api/threads` row as the wire carries it, with its live state in turn words. */
export function threadListingFromWire(summary: ThreadSummary): ThreadListing {
  const { state, ...rest } = summary;
  return state === undefined ? rest : { ...rest, state: threadLiveStateFromWire(state) };
}

/** An `agent_state` state as the frame sends it (`waiting_on_user`). */
export function agentStateOnWire(state: AgentState): AgentStateName {
  return state === "waiting_user" ? "waiting_on_user" : state;
}

/** An `agent_state` frame's state in turn words. */
export function agentStateFromWire(state: AgentStateName): AgentState {
  return state === "waiting_on_user" ? "waiting_user" : state;
}

/** A thread's latest turn status (undefined: no turn yet) as `chat_resumed.status` sends it. */
export function chatResumedStatusOnWire(status: TurnStatus | undefined): ChatResumedFrame["status"] {
  switch (status) {
    case undefined:
      return "unknown";
    case "running":
    case "interrupted":
      return status;
    case "waiting_user":
      return "waiting_on_user";
    default:
      return "finished";
  }
}

/**
 * `chat_resumed.status` in turn words: undefined when the thread had no turn (`unknown`), and
 * `complete` for `finished`, which stands for every end but `interrupted` (the replay holds which).
 */
export function chatResumedStatusFromWire(status: ChatResumedFrame["status"]): TurnStatus | undefined {
  switch (status) {
    case "unknown":
      return undefined;
    case "waiting_on_user":
      return "waiting_user";
    case "finished":
      return "complete";
    default:
      return status;
  }
}

/** A workflow run's status as `job_update.status` sends it (`completed`, `failed`, `cancelled`). */
export function jobStatusOnWire(status: "running" | EndedTurnStatus): JobUpdateFrame["status"] {
  switch (status) {
    case "running":
      return "running";
    case "complete":
      return "completed";
    case "stopped":
    case "interrupted":
      return "cancelled";
    default:
      return "failed";
  }
}

/** `job_update.status` in turn words: `cancelled` is `stopped`, `failed` is `error`. */
export function jobStatusFromWire(status: JobUpdateFrame["status"]): "running" | EndedTurnStatus {
  return runWordsFromWire(status);
}

/** A workflow run's or node's older words (`completed`, `failed`, `cancelled`) in turn words; others as they are. */
function runWordsFromWire<S extends string>(
  status: S,
): Exclude<S, "completed" | "failed" | "cancelled"> | "complete" | "error" | "stopped" {
  switch (status) {
    case "completed":
      return "complete";
    case "failed":
      return "error";
    case "cancelled":
      return "stopped";
    default:
      return status as Exclude<S, "completed" | "failed" | "cancelled">;
  }
}

/** A workflow node's status as `node_update.status` sends it (`completed`, `failed`, `cancelled`). */
export function nodeStatusOnWire(status: NodeStatus): NodeUpdateFrame["status"] {
  switch (status) {
    case "complete":
      return "completed";
    case "error":
      return "failed";
    case "stopped":
      return "cancelled";
    default:
      return status;
  }
}

/** `node_update.status` in turn words. */
export function nodeStatusFromWire(status: NodeUpdateFrame["status"]): NodeStatus {
  return runWordsFromWire(status);
}
