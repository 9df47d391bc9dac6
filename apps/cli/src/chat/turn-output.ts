/** Where a turn's text goes: for good (the answer, finish lines) and, on a terminal, a status area below it. */
export interface TurnOutput {
  /** Adds text for good; it may end mid-line and go on with the next write. */
  write(text: string): void;
  /** Shows the status area from `lines` (redrawn as time passes) until `stop`. */
  start(lines: () => string[]): void;
  /** Redraws the status area now (its state changed). */
  refresh(): void;
  /** A line the user typed was echoed by the terminal below the status area (which then redraws over it). */
  typed?(): void;
  /** Removes the status area and ends the text on a line of its own: before a prompt and after a turn. */
  stop(): void;
}

/** Plain text, as it comes: for pipes and files, with no status area and no escape sequences. */
export function plainOutput(write: (text: string) => void): TurnOutput {
  let atLineStart = true;
  return {
    write(text) {
      if (!text) return;
      write(text);
      atLineStart = text.endsWith("\n");
    },
    start() {},
    refresh() {},
    stop() {
      if (!atLineStart) write("\n");
      atLineStart = true;
    },
  };
}
