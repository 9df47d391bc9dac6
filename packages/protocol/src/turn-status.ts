import { z } from "zod";

/**
 * The one status vocabulary of a turn: `running` and `waiting_user` while it is active, then how it
 * ended. Stored on the turn and, for the turn's final message, on that message; the agent loop's
 * result, thread states and workflow runs use the same words (the wire's older words for some of
 * them are mapped in turn-status-on-wire.ts only).
 */
export const TurnStatus = z.enum([
  "running",
  "waiting_user",
  "complete",
  "stopped",
  "budget_exceeded",
  "iteration_limit",
  "error",
  "interrupted",
]);
export type TurnStatus = z.infer<typeof TurnStatus>;

/** A turn that has not ended: working, or suspended until the user answers or approves. */
export const ActiveTurnStatus = TurnStatus.extract(["running", "waiting_user"]);
export type ActiveTurnStatus = z.infer<typeof ActiveTurnStatus>;

/** How a turn ended: `stopped` by the user, `interrupted` by the server (shutdown, crash, lost lease). */
export const EndedTurnStatus = TurnStatus.exclude(["running", "waiting_user"]);
export type EndedTurnStatus = z.infer<typeof EndedTurnStatus>;

/** A thread's live state in turn words: the status of its active turn, or `idle` when it has none. */
export const ThreadTurnState = z.enum([...ActiveTurnStatus.options, "idle"]);
export type ThreadTurnState = z.infer<typeof ThreadTurnState>;

/** A workflow node's status in turn words: a node ends as a turn does, or is `skipped`. */
export const NodeStatus = z.enum([
  ...TurnStatus.extract(["running", "complete", "error", "stopped"]).options,
  "skipped",
]);
export type NodeStatus = z.infer<typeof NodeStatus>;
