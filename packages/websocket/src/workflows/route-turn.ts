import { ExecutionTreeBuilder, type LoopResult, UsageAccumulator } from "@agentwire/agents";
import type { ChatMessageData, TurnUsage } from "@agentwire/protocol";
import { ownThread, watchTurn } from "../chat/chat-connection.js";
import type { ChatServices } from "../chat/chat-services.js";
import { titleOf } from "../chat/handle-chat-message.js";
import { endFrames, finish, storeRow, type TurnRun } from "../chat/turn-driver.js";
import { AgentwireError } from "../errors/agentwire-error.js";
import type { ConnectionContext } from "../ws/connection-context.js";

/**
 * Starts a turn for route 1 or 2 exactly like the agent route does: busy check, the thread created
 * when none is given (`thread` frame first), the turn registered and watched, the user message
 * stored. Everything that can refuse the message must have been checked before this is called.
 */
export function beginRouteTurn(
  conn: ConnectionContext,
  chat: ChatServices,
  data: ChatMessageData,
  who: { provider: string; model: string },
): TurnRun {
  const existing = data.thread_id !== undefined ? ownThread(conn, data.thread_id) : undefined;
  const active = existing && chat.turns.get(existing.id);
  if (active && active.phase !== "finished") {
    throw new AgentwireError("busy", "a turn is already running on this thread");
  }
  const { repos, userId } = conn;
  const thread = existing ?? repos.threads.create(userId, titleOf(data.content));
  const turnRow = repos.turns.start(userId, thread.id);
  // Synchronous since the busy check: no other turn can have claimed the thread in between.
  const turn = chat.turns.start(thread.id, userId, turnRow.id, thread.lastSeq);
  if (!turn) throw new AgentwireError("busy", "a turn is already running on this thread");
  watchTurn(conn, chat, turn);
  const run: TurnRun = {
    turn,
    registry: chat.turns,
    repos,
    logger: conn.logger.child({ thread_id: thread.id, turn_id: turnRow.id }),
    provider: who.provider,
    model: who.model,
    limits: chat.limits,
    tree: new ExecutionTreeBuilder(),
    chatContext: data.chat_context ?? { kind: "thread" },
    memoryEnabled: data.memory_enabled ?? true,
  };
  if (!existing) turn.emit({ type: "thread", title: thread.title });
  storeRow(run, { role: "user", content: data.content, status: "complete", turnId: turn.turnId });
  return run;
}

/** How a route turn ended, in the agent loop's terms so `finish` stores and ends it the same way. */
export type RouteTurnResult = Pick<LoopResult, "status" | "usage" | "error">;

/**
 * Stores the final assistant message and sends the end frames (usage, idle, the one `done`) with the
 * chat driver's `finish`; if the database fails there, the client still gets a clean end.
 */
export function endRouteTurn(run: TurnRun, result: RouteTurnResult, text: string): void {
  try {
    finish(run, result, text);
  } catch (error) {
    run.logger.error({ err: error }, "could not store the end of the turn");
    run.turn.emit({ type: "error", code: "internal", message: "internal error" });
    endFrames(run, result.usage);
  }
}

/** Turn usage for a route that counts calls but sees no token counts (cost unknown once anything ran). */
export function countedUsage(
  counts: { llmCalls?: number; toolCalls?: number },
  costKnown: boolean,
): TurnUsage {
  const usage = new UsageAccumulator().snapshot();
  return {
    ...usage,
    llm_calls: counts.llmCalls ?? 0,
    tool_calls: counts.toolCalls ?? 0,
    cost_known: costKnown,
  };
}
