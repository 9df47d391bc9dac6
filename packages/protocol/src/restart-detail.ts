/**
 * What a client shows when the server restarted in the middle of a turn: the server sends the first
 * two as `agent_state resumed`'s `detail`; clients use all four for cut attempts they draw from
 * stored rows or from a subtask's `attempt` start, which carry no detail of their own.
 */
export const RESTART_DETAIL = {
  /** The turn goes on from its last completed step. */
  continues: "the server restarted; the turn continues from its last completed step",
  /** The turn was cut before any step completed: it runs again from the user's message. */
  rerun: "the server restarted; the turn starts again from your message",
  /** A subtask goes on from its last completed step (it had made a nested call). */
  subtaskContinues: "the server restarted; the subtask continues from its last completed step",
  /** A subtask cut before any step completed starts again from its instructions. */
  subtaskRerun: "the server restarted; the subtask starts again",
} as const;
