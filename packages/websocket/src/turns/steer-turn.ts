import type { ModelMessage } from "@agentwire-chat/agents";
import { settleWrites } from "./end-turn.js";
import type { TurnSegment } from "./turn-segment.js";

/**
 * The root's inbox of steering messages (the loop's `ctx.steer`): before a model call, the user
 * messages queued to steer this turn are taken from the queue, stored on its branch after the rows
 * before them (the tool results the call waited for), and each announced as it joins (`message`
 * with `steered`), so the frames say when the model received it. `everyCall`: other instances may
 * queue them too, so the queue is read before every call, not only on this process's hint.
 */
export function steerInbox(run: TurnSegment, everyCall: boolean): () => Promise<ModelMessage[]> {
  const { turn, repos } = run;
  return async () => {
    if (!everyCall && !turn.steerPending) return [];
    turn.steerPending = false;
    const rows = await repos.queuedMessages.takeSteers(turn.userId, turn.threadId);
    if (rows.length === 0) return [];
    await settleWrites(run);
    const messages: ModelMessage[] = [];
    for (const row of rows) {
      const { content } = row.data;
      const message = await repos.messages.append(turn.userId, turn.threadId, {
        id: row.id,
        role: "user",
        content,
        status: "complete",
        turnId: turn.turnId,
      });
      const echo = row.requestId !== null ? { request_id: row.requestId } : {};
      turn.emit({ type: "message", message, steered: true, ...echo });
      messages.push({ role: "user", content });
    }
    return messages;
  };
}
