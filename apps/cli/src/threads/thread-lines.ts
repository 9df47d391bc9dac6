import type { ThreadListing } from "@agentwire-chat/protocol";
import { preview } from "@agentwire-chat/protocol/preview";
import { terminalText } from "../chat/terminal-text.js";

const TITLE_CHARS = 60;
const QUESTION_CHARS = 100;

/** Whether a thread changed since the user last looked, and so is marked `•`. */
export type NewActivity = (thread: ThreadListing) => boolean;

/**
 * The thread list as `agentwire threads` prints it: one line per thread, newest first, `•` for new
 * activity, its live state, its id and title; a waiting thread's question under it.
 */
export function threadLines(threads: ThreadListing[], isNew: NewActivity): string[] {
  const state = (t: ThreadListing) => (t.state === "waiting_user" ? "waiting" : (t.state ?? "idle"));
  const width = Math.max(0, ...threads.map((t) => state(t).length));
  return threads.flatMap((t) => {
    const line = `${isNew(t) ? "•" : " "} ${state(t).padEnd(width)}  ${t.id}  ${terminalText(preview(t.title, TITLE_CHARS))}`;
    const question = t.state === "waiting_user" && t.question;
    return question ? [line, `    ? ${terminalText(preview(question, QUESTION_CHARS))}`] : [line];
  });
}
