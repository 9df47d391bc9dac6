import {
  type ChatMessageData,
  contentText,
  type MessageContent,
  preview,
  stripControl,
} from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";

/**
 * A thread's title follows its current branch: when the branch's first message changes (an edit of
 * the first message, or a move to a branch that starts elsewhere) a title still made from the old
 * first message is made from the new one. A title the user chose stays.
 */
export async function followBranchTitle(
  repos: Repositories,
  userId: string,
  threadId: string,
  from: MessageContent | null | undefined,
  to: MessageContent,
): Promise<void> {
  if (from == null) return;
  const thread = await repos.threads.get(userId, threadId);
  const title = titleOf(to);
  if (thread && thread.title === titleOf(from) && thread.title !== title)
    await repos.threads.rename(userId, threadId, title);
}

/** A thread's title from its first message. */
export function titleOf(content: ChatMessageData["content"]): string {
  // Control characters out too: Postgres text cannot hold NUL, and a title is for reading.
  return preview(stripControl(contentText(content)), 80) || "New chat";
}
