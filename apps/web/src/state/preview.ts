/** Longest one-line preview shown on a card header. */
export const PREVIEW_CHARS = 140;

/** A one-line, bounded preview of any tool argument or result value. */
export function previewValue(value: unknown, max = PREVIEW_CHARS): string {
  if (value === undefined || value === null) return "";
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
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** run_subtask's title: the frame's `title`, else `args.title` when it is a string. */
export function titleFrom(title: string | undefined, args: unknown): string | undefined {
  if (title) return title;
  if (typeof args === "object" && args !== null && "title" in args) {
    const t = (args as { title: unknown }).title;
    if (typeof t === "string" && t.length > 0) return t;
  }
  return undefined;
}
