import { ExecutionTreeBuilder } from "@agentwire/agents";
import { type ChatMessageData, contentText } from "@agentwire/protocol";
import { AgentwireError } from "../errors/agentwire-error.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import { ownThread, watchTurn } from "./chat-connection.js";
import type { ChatServices } from "./chat-services.js";
import { recordSeqs } from "./record-seqs.js";
import { storeRow, type TurnRun } from "./turn-driver.js";

/**
 * Starts a turn of any route the same way: busy check, the thread created when none is given
 * (`thread` frame first), the turn registered, recording its seqs and watched, the user message
 * stored. Everything that can refuse the message must have been checked before this is called.
 */
export function beginTurn(
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
  recordSeqs(turn, repos, conn.logger);
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
    observer: chat.observer,
  };
  if (!existing) turn.emit({ type: "thread", title: thread.title });
  storeRow(run, { role: "user", content: data.content, status: "complete", turnId: turn.turnId });
  return run;
}

/** A thread's title from its first message. */
export function titleOf(content: ChatMessageData["content"]): string {
  const text = contentText(content).replace(/\s+/g, " ").trim();
  if (!text) return "New chat";
  return text.length <= 80 ? text : `${text.slice(0, 79)}…`;
}
