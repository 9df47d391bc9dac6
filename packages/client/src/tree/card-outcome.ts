import type { CardStatus } from "./thread-view.js";

/**
 * The results the agent core gives a call that Stop or the budget cut short, or that never started
 * (`stoppedOutcome` and `subtaskOutcome` in @agentwire-chat/agents). The protocol has no field for it,
 * so the page reads these exact texts; anything else that is an error stays an error.
 */
const CUT_SHORT = /^(?:subtask ".*" )?(?:stopped: the turn's budget is exhausted|cancelled)$/s;
/** Without the `subtask "…"` prefix the run_subtask call never started a subtask. */
const NEVER_STARTED = /^(?:stopped: the turn's budget is exhausted|cancelled)$/;
const DEPTH_LIMIT = /^run_subtask is not available: the maximum subtask depth/;

/** How an ended call shows: complete, error, stopped (cut short) or refused (a subtask that never ran). */
export function endStatus(name: string, result: unknown, isError: boolean | undefined): CardStatus {
  if (isError !== true) return "complete";
  if (typeof result !== "string") return "error";
  if (name === "run_subtask" && (NEVER_STARTED.test(result) || DEPTH_LIMIT.test(result))) return "refused";
  return CUT_SHORT.test(result) ? "stopped" : "error";
}

/** ask_user's question from its arguments (an object, or the JSON text of a stored preview). */
export function questionFrom(args: unknown): string | undefined {
  return stringArg(args, "question");
}

/** send_update's message from its arguments (an object, or the JSON text of a stored preview). */
export function progressFrom(args: unknown): string | undefined {
  const message = stringArg(args, "message");
  if (typeof args !== "string" || message !== args) return message;
  // A long message's stored preview is cut JSON: show the message's text, not the braces.
  const cut = /^\{\s*"message"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(args)?.[1];
  return cut === undefined ? message : cut.replace(/\\(["\\/])/g, "$1").replace(/\\n/g, "\n");
}

function stringArg(args: unknown, key: string): string | undefined {
  let value = args;
  if (typeof args === "string") {
    try {
      value = JSON.parse(args);
    } catch {
      // A preview cut at its length limit is no longer JSON: show it as it is.
      return args || undefined;
    }
  }
  if (typeof value === "object" && value !== null && key in value) {
    const found = (value as Record<string, unknown>)[key];
    if (typeof found === "string") return found;
  }
  return undefined;
}
