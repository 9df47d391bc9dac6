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

/**
 * A line wrapped to `columns` at spaces, each further row under `indent` (a terminal would cut it
 * mid-word and start again at the left edge). A word longer than a row is cut. Unwrapped without `columns`.
 */
export function wrapWords(text: string, columns: number | undefined, indent: string): string {
  if (columns === undefined || [...text].length < columns) return text;
  const width = Math.max(20, columns - 1);
  const rows: string[] = [];
  let row = "";
  for (const word of text.split(/(?<=\S) (?=\S)/)) {
    const next = row === "" ? word : `${row} ${word}`;
    if ([...next].length <= width || row.trim() === "") {
      row = next;
      continue;
    }
    rows.push(row);
    row = `${indent}${word}`;
  }
  rows.push(row);
  // A single word wider than a row is cut where the terminal would have cut it anyway.
  return rows.flatMap((r) => cut(r, width, indent)).join("\n");
}

function cut(row: string, width: number, indent: string): string[] {
  const chars = [...row];
  if (chars.length <= width) return [row];
  const step = Math.max(1, width - indent.length);
  const out = [chars.slice(0, width).join("")];
  for (let i = width; i < chars.length; i += step) out.push(indent + chars.slice(i, i + step).join(""));
  return out;
}
