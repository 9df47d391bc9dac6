import { PREVIEW_MAX_CHARS } from "@agentwire-chat/protocol/preview";

/** Longest one-line preview shown on a card header. */
export const PREVIEW_CHARS = 140;

/**
 * Longest result shown in a card's body: the length of the stored execution_tree's previews, so a
 * live card and the same card rebuilt after a reload show the same text.
 */
export const RESULT_CHARS = PREVIEW_MAX_CHARS;

/** run_subtask's title: the frame's `title`, else `args.title` when it is a string. */
export function titleFrom(title: string | undefined, args: unknown): string | undefined {
  if (title) return title;
  if (typeof args === "object" && args !== null && "title" in args) {
    const t = (args as { title: unknown }).title;
    if (typeof t === "string" && t.length > 0) return t;
  }
  return undefined;
}
