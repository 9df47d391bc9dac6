import { contentText, type StoredMessage } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";

/** One turn of the thread's current branch, as an edge places a client's message against it. */
export interface BranchTurn {
  /** The turn's user message (the row `regenerate` answers again). */
  userMessageId: string;
  /** What that user message follows: the previous turn's final assistant row, null for the first turn. */
  parentId: string | null;
  /** The user message's text (its images left out). */
  text: string;
  /** Every row of the turn on the branch, its user message first. */
  rowIds: string[];
}

/**
 * The turns of a branch (rows first to leaf): a user row starts a turn unless it follows a `tool` row,
 * which makes it a message steered into the running turn (it joins after the tool results it waited
 * for), part of that turn.
 */
export function turnsOf(messages: readonly StoredMessage[]): BranchTurn[] {
  const turns: BranchTurn[] = [];
  let previous: StoredMessage | undefined;
  for (const message of messages) {
    const current = turns.at(-1);
    if (message.role === "user" && (current === undefined || previous?.role !== "tool")) {
      turns.push({
        userMessageId: message.id,
        parentId: message.parent_message_id ?? previous?.id ?? null,
        text: contentText(message.content),
        rowIds: [message.id],
      });
    } else current?.rowIds.push(message.id);
    previous = message;
  }
  return turns;
}

/** The turns of the user's thread's current branch (none when the thread has no message). */
export async function currentTurns(
  repos: Repositories,
  userId: string,
  threadId: string,
): Promise<BranchTurn[]> {
  const branch = await repos.messages.branch(userId, threadId);
  return branch ? turnsOf(branch.messages) : [];
}

/**
 * Where a new user message goes when the client's conversation places it as turn `position` of the
 * branch (0: the first): past the branch's last turn it follows the current leaf (nothing to say);
 * in place of an existing turn it is an edit of that turn's user message, following what that
 * message followed (null: a new first message). Undefined position: the client's request says
 * nothing about its history, so the message follows the current leaf.
 */
export function placement(
  turns: readonly BranchTurn[],
  position: number | undefined,
): { parent_message_id?: string | null } {
  if (position === undefined || position >= turns.length) return {};
  return { parent_message_id: (turns[position] as BranchTurn).parentId };
}
