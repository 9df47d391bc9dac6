import type { BudgetBreach } from "../budget/turn-budget.js";

/**
 * The abort reason of a user's stop. A turn whose signal is aborted with it ends `stopped`; aborted
 * for any other reason (shutdown, a lost lease, a caller's plain `abort()`) it ends `interrupted`.
 */
export const USER_STOP = "stop";

/** Another instance took the turn's thread lease: this one stops writing at once. */
export const LEASE_LOST = "lease_lost";

/**
 * A rolling deploy's handover: not a user's stop, not an interruption. The turn stops where it is
 * and another instance continues it from its last checkpoint.
 */
export const HANDOVER = "handover";

/** The server is shutting down: running turns and their side work end `interrupted`. */
export const SHUTDOWN = "shutdown";

/** A level's own signal when the level ends: a plain value, not a DOMException and its stack per level. */
export const LEVEL_ENDED = "level ended";

/**
 * Every reason a turn's or a level's signal is aborted with; the turn budget's own signal carries
 * its breach (see TurnBudget).
 */
export type AbortReason =
  | typeof USER_STOP
  | typeof LEASE_LOST
  | typeof HANDOVER
  | typeof SHUTDOWN
  | typeof LEVEL_ENDED
  | BudgetBreach;

/** Aborts `controller` with a known reason, so what reads `signal.reason` can tell why. */
export function abortTurn(controller: AbortController, reason: AbortReason): void {
  controller.abort(reason);
}

/** How a run whose signal fired ends, told by the signal's reason. */
export function abortedStatus(signal: AbortSignal): "stopped" | "interrupted" {
  return signal.reason === USER_STOP ? "stopped" : "interrupted";
}
