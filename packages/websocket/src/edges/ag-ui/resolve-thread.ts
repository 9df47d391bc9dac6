import type { Repositories } from "@agentwire-chat/storage";

const REQUEST_PREFIX = "ag-ui:";
/** A threadId naming agentwire's own thread, e.g. one started on the native socket. */
export const NATIVE_THREAD_PREFIX = "agentwire:";

/**
 * The request id every turn an AG-UI run starts carries: the stored turn rows map the client's
 * threadId to agentwire's thread, per user, on every instance, with nothing stored beside them.
 */
export function agUiRequestId(threadId: string): string {
  return REQUEST_PREFIX + threadId;
}

/**
 * agentwire's thread for an AG-UI threadId of the user, undefined for a new conversation.
 * `agentwire:<id>` names agentwire's thread `<id>` itself, which the native command then checks is
 * the user's (another user's is `not_found`, and nothing is stored). Any other threadId is the
 * client's own name, mapped per user through the request id of the turn its first run started: two
 * users' clients may use the same name and never meet.
 */
export async function resolveAgUiThread(
  repos: Repositories,
  userId: string,
  threadId: string,
): Promise<string | undefined> {
  if (threadId.startsWith(NATIVE_THREAD_PREFIX)) return threadId.slice(NATIVE_THREAD_PREFIX.length);
  const turn = await repos.turns.findByRequestId(userId, agUiRequestId(threadId));
  return turn?.threadId;
}
