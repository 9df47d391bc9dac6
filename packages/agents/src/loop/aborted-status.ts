/**
 * The abort reason of a user's stop. A turn whose signal is aborted with it ends `stopped`; aborted
 * for any other reason (shutdown, a lost lease, a caller's plain `abort()`) it ends `interrupted`.
 */
export const USER_STOP = "stop";

/** How a run whose signal fired ends, told by the signal's reason. */
export function abortedStatus(signal: AbortSignal): "stopped" | "interrupted" {
  return signal.reason === USER_STOP ? "stopped" : "interrupted";
}
