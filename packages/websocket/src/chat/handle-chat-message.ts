import { ExecutionTreeBuilder, runUnifiedAgentLoop } from "@agentwire/agents";
import { type ChatMessageData, contentText } from "@agentwire/protocol";
import { AgentwireError } from "../errors/agentwire-error.js";
import { runMediaTurn } from "../media/run-media-turn.js";
import { runWorkflowTurn } from "../workflows/run-workflow-turn.js";
import type { CommandHandler } from "../ws/command-router.js";
import { ownThread, requireChat, watchTurn } from "./chat-connection.js";
import { recordSeqs } from "./record-seqs.js";
import { threadHistory } from "./thread-history.js";
import { driveTurn, storeRow } from "./turn-driver.js";
import { turnToolbelt } from "./turn-toolbelt.js";

/**
 * `chat_message`: routes to the saved-workflow runner, media generation, or the unified chat agent;
 * for the agent, validates provider and model before anything is stored, then starts the turn.
 */
export const handleChatMessage: CommandHandler<"chat_message"> = async (frame, conn) => {
  const data = frame.data;
  logDeprecated(data, conn.logger);
  // Routes 1 and 2 answer `unavailable` themselves when their services are not configured.
  if (data.workflow_target === "workflow") return runWorkflowTurn(data, conn);
  if (data.media_generation && data.media_generation.mode !== "chat") return runMediaTurn(data, conn);
  await runChatAgent(data, conn);
};

/** Starts a unified-agent turn on a new or existing thread. */
export async function runChatAgent(data: ChatMessageData, conn: Parameters<typeof handleChatMessage>[1]) {
  const chat = requireChat(conn);
  const resolved = chat.providers.resolve({ provider: data.provider, model: data.model }, chat.defaults);
  if (!resolved.ok) throw new AgentwireError("bad_request", resolved.message);
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
  const logger = conn.logger.child({ thread_id: thread.id, turn_id: turnRow.id });
  watchTurn(conn, chat, turn);
  const chatContext = data.chat_context ?? { kind: "thread" as const };
  const memoryEnabled = data.memory_enabled ?? true;
  const run = {
    turn,
    registry: chat.turns,
    repos,
    logger,
    provider: resolved.provider.id,
    model: resolved.model,
    limits: chat.limits,
    tree: new ExecutionTreeBuilder(),
    chatContext,
    memoryEnabled,
    observer: chat.observer,
  };
  if (!existing) turn.emit({ type: "thread", title: thread.title });
  storeRow(run, { role: "user", content: data.content, status: "complete", turnId: turn.turnId });
  const history = threadHistory(repos.messages.list(userId, thread.id));
  const scope = {
    userId,
    threadId: thread.id,
    chatContext,
    connectionId: conn.connectionId,
    provider: resolved.provider.id,
    model: resolved.model,
  };
  // Inside the driven generator, so a failure to build the tools ends the turn like any other error.
  void driveTurn(run, async function* (ctx) {
    const belt = await turnToolbelt(chat, scope, memoryEnabled, logger);
    logger.info({ provider: run.provider, model: run.model, tools: belt.tools.length }, "turn started");
    return yield* runUnifiedAgentLoop({
      provider: resolved.provider,
      model: resolved.model,
      systemPrompt: belt.systemPrompt,
      history,
      tools: belt.tools,
      ctx,
      signal: turn.abort.signal,
    });
  });
}

export function titleOf(content: ChatMessageData["content"]): string {
  const text = contentText(content).replace(/\s+/g, " ").trim();
  if (!text) return "New chat";
  return text.length <= 80 ? text : `${text.slice(0, 79)}…`;
}

function logDeprecated(data: ChatMessageData, logger: { debug: (o: object, m: string) => void }): void {
  const fields = (["agent_mode", "tools", "collections"] as const).filter((f) => data[f] !== undefined);
  if (fields.length > 0) logger.debug({ fields }, "deprecated chat_message fields accepted and ignored");
}
