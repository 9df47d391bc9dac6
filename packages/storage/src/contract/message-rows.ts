import { randomUUID } from "node:crypto";
import type { StoredMessage } from "@agentwire-chat/protocol";
import type { NewMessage } from "./repositories.js";
import type { MessageRow } from "./rows.js";

/**
 * The row a caller's message becomes on the user's thread, under its given id or a fresh one; `seq`
 * is 0 here because each dialect assigns the next one inside its own transaction, and so is the
 * parent when the message does not name one (the thread's current leaf, read in that transaction).
 */
export function newMessageRow(
  userId: string,
  threadId: string,
  message: NewMessage,
  now: number,
): MessageRow {
  return {
    id: message.id ?? randomUUID(),
    threadId,
    userId,
    turnId: message.turnId ?? null,
    seq: 0,
    role: message.role,
    content: message.content ?? null,
    toolCalls: message.toolCalls ?? null,
    toolCallId: message.toolCallId ?? null,
    isError: message.isError ?? null,
    provider: message.provider ?? null,
    model: message.model ?? null,
    executionTree: message.executionTree ?? null,
    usage: message.usage ?? null,
    status: message.status,
    createdAt: now,
    parentId: message.parentId ?? null,
  };
}

/**
 * A message row as the protocol's StoredMessage (absent optional fields left out, not null; but
 * `parent_message_id`, null for a first message). One parameter: callers map rows with it.
 */
export function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    thread_id: row.threadId,
    role: row.role,
    content: row.content,
    ...(row.toolCalls != null && { tool_calls: row.toolCalls }),
    ...(row.toolCallId != null && { tool_call_id: row.toolCallId }),
    ...(row.isError != null && { is_error: row.isError }),
    ...(row.provider != null && { provider: row.provider }),
    ...(row.model != null && { model: row.model }),
    ...(row.executionTree != null && { execution_tree: row.executionTree }),
    ...(row.usage != null && { usage: row.usage }),
    status: row.status,
    created_at: new Date(row.createdAt).toISOString(),
    ...(row.turnId != null && { turn_id: row.turnId }),
    parent_message_id: row.parentId,
  };
}
