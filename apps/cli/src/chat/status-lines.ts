import { formatSeconds } from "./terminal-text.js";
import { runningRootCalls, type TurnPhase, type TurnState } from "./turn-state.js";

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
const SPINNER_MS = 80;

/** The terminal keeps its short word for a turn waiting on the user. */
const phaseWords: Record<TurnPhase, string> = {
  queued: "queued",
  thinking: "thinking",
  writing: "writing",
  working: "working",
  waiting_user: "waiting",
};

/**
 * The status area under the streamed text: one line per running depth-0 call (so parallel subtasks
 * show side by side), or one line for what the turn is doing. Each line fits in `columns`.
 */
export function statusLines(state: TurnState, now: number, columns: number): string[] {
  const spin = SPINNER[Math.floor(now / SPINNER_MS) % SPINNER.length];
  const running = runningRootCalls(state);
  const lines =
    running.length === 0
      ? [`${spin} ${phaseWords[state.phase]} · ${formatSeconds(now - state.startedAt)}`]
      : running.map(
          (call) =>
            `${spin} ${call.label} · ${formatSeconds(now - call.startedAt)}${call.activity ? ` · ${call.activity}` : ""}`,
        );
  return lines.map((text) => fit(text, columns));
}

/** The status area while the socket is down: the SDK reconnects, and the turn goes on where it was. */
export function reconnectingLine(now: number, columns: number): string[] {
  const spin = SPINNER[Math.floor(now / SPINNER_MS) % SPINNER.length];
  return [fit(`${spin} connection lost · reconnecting…`, columns)];
}

/** Cut to one terminal row (a wrapped status line would push the area down and flicker). */
function fit(text: string, columns: number): string {
  const chars = [...text];
  const max = Math.max(10, columns - 1);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** How often the status area is redrawn while a turn runs. */
export const STATUS_REFRESH_MS = SPINNER_MS;
