import stripAnsi from "strip-ansi";

// biome-ignore lint/complexity/useRegexLiterals: a literal with control characters trips noControlCharactersInRegex
const CONTROL = new RegExp("[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]", "g");

/**
 * Text from the server made safe to print: line ends normalised, escape sequences and other control
 * characters removed, so a model's output can never move the cursor, clear or restyle the terminal.
 */
export function terminalText(text: string): string {
  return stripAnsi(text).replace(/\r\n?/g, "\n").replace(CONTROL, "");
}

/** A wait as people read it: `20 ms` below ten seconds, else `12.3 s`. */
export function formatDuration(ms: number): string {
  return ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** `1 nested call`, `2 nested calls`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** An elapsed time in whole tenths of a second, for the status area: `3.4 s`. */
export function formatSeconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}
