import type { ThreadState } from "@agentwire-chat/client";
import type { ThreadListing } from "@agentwire-chat/protocol";

/**
 * The thread list with one thread's live state (a `thread_state` frame): its badge changes
 * without reloading the list. Undefined when the list does not have the thread yet (made in
 * another tab): the caller reloads the list to learn its title.
 */
export function withThreadState(
  threads: ThreadListing[],
  frame: ThreadState,
  now: string = new Date().toISOString(),
): ThreadListing[] | undefined {
  const at = threads.findIndex((t) => t.id === frame.thread_id);
  const thread = threads[at];
  if (!thread) return undefined;
  const { question: _question, ...rest } = thread;
  const updated: ThreadListing = {
    ...rest,
    state: frame.state,
    // The thread just changed (an answer finished, a question came): what the new-activity mark reads.
    ...(frame.state !== thread.state && { updated_at: maxIso(thread.updated_at, now) }),
    ...(frame.state === "waiting_user" && frame.question !== undefined && { question: frame.question }),
  };
  return threads.map((t, i) => (i === at ? updated : t));
}

const maxIso = (a: string, b: string) => (a > b ? a : b);
