import { z } from "zod";

// biome-ignore lint/complexity/useRegexLiterals: a literal with control characters trips noControlCharactersInRegex
const CONTROL = new RegExp("[\\u0000-\\u001f\\u007f]");
// biome-ignore lint/complexity/useRegexLiterals: as above
const CONTROL_RUNS = new RegExp("[\\u0000-\\u001f\\u007f]+", "g");

/** True when `text` holds no control character (NUL included: Postgres text cannot store it). */
export function isPrintable(text: string): boolean {
  return !CONTROL.test(text);
}

/** `text` with each run of control characters replaced by `by`. */
export function stripControl(text: string, by = " "): string {
  return text.replace(CONTROL_RUNS, by);
}

/**
 * A short identifying string from a client (ids, provider and model names): 1 to `max` characters,
 * no control characters. They are looked up and stored as they are, so a NUL would fail on Postgres.
 */
export function printable(max: number) {
  return z.string().min(1).max(max).refine(isPrintable, "must not contain control characters");
}
