import { runUnifiedAgentLoop } from "@agentwire/agents";
import type { ChatMessageData } from "@agentwire/protocol";
import { AgentwireError } from "../errors/agentwire-error.js";
import { beginTurn } from "../turns/begin-turn.js";
import { driveTurn } from "../turns/drive-turn.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import { requireChat } from "./chat-connection.js";
import { threadHistory } from "./thread-history.js";
import { turnToolbelt } from "./turn-toolbelt.js";

/** Starts a unified-agent turn on a new or existing thread. */
export async function runChatAgent(
  data: ChatMessageData,
  conn: ConnectionContext,
  requestId?: string,
): Promise<void> {
  const chat = requireChat(conn);
  const resolved = chat.providers.resolve({ provider: data.provider, model: data.model }, chat.defaults);
  if (!resolved.ok) throw new AgentwireError("bad_request", resolved.message);
  const who = { provider: resolved.provider.id, model: resolved.model };
  const run = await beginTurn(conn, chat, data, who, requestId);
  const { turn, logger, chatContext, memoryEnabled } = run;
  const { repos, userId } = conn;
  const history = threadHistory(await repos.messages.list(userId, turn.threadId));
  const scope = {
    userId,
    threadId: turn.threadId,
    chatContext,
    connectionId: conn.connectionId,
    provider: resolved.provider.id,
    model: resolved.model,
  };
  // Inside the driver, so a failure to build the tools ends the turn like any other error.
  void driveTurn(run, async (ctx) => {
    const belt = await turnToolbelt(chat, scope, memoryEnabled, logger, repos);
    logger.info({ provider: run.provider, model: run.model, tools: belt.tools.length }, "turn started");
    return runUnifiedAgentLoop({
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
