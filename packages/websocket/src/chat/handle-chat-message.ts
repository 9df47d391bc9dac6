import { runUnifiedAgentLoop } from "@agentwire/agents";
import type { ChatMessageData } from "@agentwire/protocol";
import { AgentwireError } from "../errors/agentwire-error.js";
import { runMediaTurn } from "../media/run-media-turn.js";
import { runWorkflowTurn } from "../workflows/run-workflow-turn.js";
import type { CommandHandler } from "../ws/command-router.js";
import { beginTurn } from "./begin-turn.js";
import { requireChat } from "./chat-connection.js";
import { threadHistory } from "./thread-history.js";
import { driveTurn } from "./turn-driver.js";
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
  const run = beginTurn(conn, chat, data, { provider: resolved.provider.id, model: resolved.model });
  const { turn, logger, chatContext, memoryEnabled } = run;
  const { repos, userId } = conn;
  const history = threadHistory(repos.messages.list(userId, turn.threadId));
  const scope = {
    userId,
    threadId: turn.threadId,
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

function logDeprecated(data: ChatMessageData, logger: { debug: (o: object, m: string) => void }): void {
  const fields = (["agent_mode", "tools", "collections"] as const).filter((f) => data[f] !== undefined);
  if (fields.length > 0) logger.debug({ fields }, "deprecated chat_message fields accepted and ignored");
}
