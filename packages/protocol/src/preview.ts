// No zod here: a browser bundle imports this module alone (`@agentwire-chat/protocol/preview`).

/** How long a stored or displayed preview of a tool's args or result may be, by default. */
export const PREVIEW_MAX_CHARS = 500;

/**
 * A value as one line of at most `maxChars` characters: strings as they are, anything else as JSON,
 * whitespace runs collapsed, an ellipsis when cut. Server previews and client displays share it.
 */
export function preview(value: unknown, maxChars: number = PREVIEW_MAX_CHARS): string {
  if (value === undefined) return "";
  let text: string;
  if (typeof value === "string") text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      // Cyclic or otherwise unserialisable values only need a hint, not a faithful rendering.
      text = String(value);
    }
  }
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= maxChars) return line;
  let cut = Math.max(0, maxChars - 1);
  // Never end on half a surrogate pair: a lone surrogate is invalid in Postgres jsonb and in UTF-8.
  const last = line.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${line.slice(0, cut)}…`;
}
