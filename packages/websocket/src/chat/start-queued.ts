import { toAgentwireError } from "@agentwire-chat/protocol";
import type { FrameSubscriber } from "@agentwire-chat/storage";
import { appendOutsideTurn } from "../turns/append-outside-turn.js";
import type { TurnEnded } from "../turns/turn-segment.js";
import type { ChatServices } from "./chat-services.js";
import { runChatAgent } from "./run-chat-agent.js";

/** Nobody's socket: a queued message's turn is followed by the thread's watchers, not by whoever queued it. */
const NOBODY: FrameSubscriber = { id: "", deliver: () => {} };

/**
 * Starts the thread's next queued message as a new turn, when one waits: after a turn's end (however
 * it ended), after recovery, or when a message was queued just as the thread fell idle. Another start
 * holding the thread (`busy`) or a full server (`overloaded`) leaves the message queued: the end of
 * that turn, or of the next, starts it. A message that can no longer start (its provider is gone) is
 * dropped with a warning, so that it does not hold up the ones behind it; one refused by a spend limit
 * is dropped too, its `error` sent to the thread's watchers as the refusal of its start would be.
 */
export async function startQueued(chat: ChatServices, where: TurnEnded): Promise<void> {
  const { userId, threadId, repos, frames, logger } = where;
  // Asked after every turn's end, after the turn left the registry (so a message queued while it
  // ended is seen here or starts itself): the count is the cheap question, the list only when needed.
  if ((await repos.queuedMessages.count(userId, threadId)) === 0) return;
  for (;;) {
    const [next] = await repos.queuedMessages.list(userId, threadId);
    if (!next) return;
    const origin = { userId, logger, repos, frames, subscriber: NOBODY, connectionId: "" };
    try {
      const data = { thread_id: threadId, ...next.data };
      await runChatAgent(data, origin, chat, next.requestId ?? undefined, { queued: next, watch: false });
      return;
    } catch (error) {
      const { code, message } = toAgentwireError(error);
      if (code === "busy" || code === "overloaded") return;
      logger.warn(
        { thread_id: threadId, message_id: next.id, code, message },
        "a queued message could not start",
      );
      if (code === "internal") return;
      await repos.queuedMessages.remove(userId, threadId, next.id);
      if (code === "spend_limit") {
        const echo = next.requestId != null ? { request_id: next.requestId } : {};
        const outside = { repos, frames, turns: chat.turns, coordination: chat.coordination };
        await appendOutsideTurn(outside, userId, threadId, { type: "error", code, message, ...echo });
      }
    }
  }
}

/** Starts every thread's next queued message (after start-up recovery: turns that ended with the old process). */
export async function startAllQueued(
  chat: ChatServices,
  where: Omit<TurnEnded, "userId" | "threadId">,
): Promise<void> {
  for (const { userId, threadId } of await where.repos.queuedMessages.queuedThreads())
    await startQueued(chat, { ...where, userId, threadId });
}
