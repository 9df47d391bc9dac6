import type { ThreadLiveState } from "./message.js";
import type { ChatResumedFrame, JobUpdateFrame } from "./server-frames.js";
import type { EndedTurnStatus, ThreadTurnState, TurnStatus } from "./turn-status.js";

// Clients depend on the words these frames have always carried; internally every one of them is a
// TurnStatus. This file is the only place the two vocabularies meet (docs/protocol.md, Turn status).

/** A thread's live state as `thread_state` and `GET /api/threads` send it (`waiting_on_user`). */
export function threadLiveStateOnWire(state: ThreadTurnState): ThreadLiveState {
  return state === "waiting_user" ? "waiting_on_user" : state;
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
