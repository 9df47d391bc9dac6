import type { ContextEntry, ModelMessage } from "@agentwire-chat/agents";
import type { StoredMessage } from "@agentwire-chat/protocol";
import { contentText } from "@agentwire-chat/protocol";

/**
 * A thread's stored rows as the model's history: user messages, assistant messages with their tool
 * calls, and tool rows, so the model sees what it did in earlier turns.
 */
export function threadHistory(rows: readonly StoredMessage[]): ModelMessage[] {
  return threadHistoryEntries(rows).map((e) => e.message);
}

/** The same history with each message's row id (what a rolling summary's coverage names). */
export function threadHistoryEntries(rows: readonly StoredMessage[]): ContextEntry[] {
  const history: ContextEntry[] = [];
  const toolNames = new Map<string, string>();
  for (const row of rows) for (const call of row.tool_calls ?? []) toolNames.set(call.id, call.name);
  for (const [i, row] of rows.entries()) {
    switch (row.role) {
      case "user":
        history.push({ id: row.id, message: { role: "user", content: row.content ?? "" } });
        break;
      case "assistant": {
        const text = contentText(row.content);
        const toolCalls = row.tool_calls?.map((c) => ({ id: c.id, name: c.name, args: c.args }));
        // A turn that ended before saying anything leaves an empty final row: nothing to replay.
        if (!text && !toolCalls?.length) break;
        // A model call cut short by a crash and made again after it: the answer that follows replaces it.
        if (row.status === "interrupted" && !toolCalls?.length && rows[i + 1]?.role === "assistant") break;
        history.push({
          id: row.id,
          message: { role: "assistant", text, ...(toolCalls?.length && { toolCalls }) },
        });
        break;
      }
      case "tool":
        history.push({
          id: row.id,
          message: {
            role: "tool",
            toolCallId: row.tool_call_id ?? "",
            name: toolNames.get(row.tool_call_id ?? "") ?? "unknown",
            content: contentText(row.content),
            ...(row.is_error && { isError: true }),
          },
        });
        break;
    }
  }
  return history;
}
