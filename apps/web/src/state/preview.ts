/** Longest one-line preview shown on a card header. */
export const PREVIEW_CHARS = 140;

/** run_subtask's title: the frame's `title`, else `args.title` when it is a string. */
export function titleFrom(title: string | undefined, args: unknown): string | undefined {
  if (title) return title;
  if (typeof args === "object" && args !== null && "title" in args) {
    const t = (args as { title: unknown }).title;
    if (typeof t === "string" && t.length > 0) return t;
  }
  return undefined;
}
