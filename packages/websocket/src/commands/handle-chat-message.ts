import { AgentwireError, type ChatMessageData, isBlankContent } from "@agentwire-chat/protocol";
import { defaultBusySettings } from "../chat/busy-settings.js";
import type { ChatServices } from "../chat/chat-services.js";
import { queueMessage } from "../chat/queue-message.js";
import { runChatAgent } from "../chat/run-chat-agent.js";
import { runMediaTurn } from "../media/run-media-turn.js";
import { runWorkflowTurn } from "../workflows/run-workflow-turn.js";
import type { CommandHandler } from "../ws/command-router.js";
import type { AgentwireServices } from "./agentwire-services.js";

/**
 * `chat_message`: routes to the saved-workflow runner (the workflow route), media generation (the media route), or the
 * unified chat agent (the chat route). Each route is given its own services and answers `unavailable` itself
 * when they are absent; every route's turn runs on the chat services' turn lifecycle.
 */
export function chatMessageHandler(
  services: AgentwireServices & { chat: ChatServices },
): CommandHandler<"chat_message"> {
  const { chat, media, workflows } = services;
  return async (frame, conn) => {
    const data = frame.data;
    logDeprecated(data, conn.logger);
    const requestId = frame.request_id;
    // Before routing and before anything is stored: on every route a message must say something.
    if (isBlankContent(data.content))
      throw new AgentwireError("bad_request", "content: empty or whitespace-only text and no image");
    const kind = data.chat_context?.kind ?? "thread";
    // Before routing: an unknown scope is the client's mistake whichever route the message takes.
    const scope = chat.scopes.get(kind);
    if (!scope)
      throw new AgentwireError(
        "bad_request",
        `chat_context.kind: no context scope named ${JSON.stringify(kind)} (known: ${chat.scopes.kinds().join(", ")})`,
      );
    if (data.chat_context?.workflow_id !== undefined && scope.base !== "editor")
      throw new AgentwireError(
        "bad_request",
        `chat_context.workflow_id: the scope ${JSON.stringify(kind)} is not based on the editor, so it takes no workflow_id`,
      );
    // The socket's editor context is its latest message's (running a saved workflow leaves it as it was).
    if (data.workflow_target !== "workflow")
      chat.openWorkflows.open(conn, scope.base === "editor" ? data.chat_context?.workflow_id : undefined);
    if (data.workflow_target === "workflow")
      return runWorkflowTurn(data, conn, { turns: chat, workflows }, requestId);
    if (data.media_generation && data.media_generation.mode !== "chat")
      return runMediaTurn(data, conn, { turns: chat, media }, requestId);
    const onBusy = data.on_busy ?? (chat.busy ?? defaultBusySettings).policy;
    try {
      await runChatAgent(data, conn, chat, requestId);
    } catch (error) {
      // Only a chat-route message on a thread with a turn waits; the refusal stored nothing.
      if (!(error instanceof AgentwireError && error.code === "busy") || onBusy === "reject") throw error;
      if (data.thread_id === undefined) throw error;
      await queueMessage({ ...data, thread_id: data.thread_id }, conn, chat, onBusy, requestId);
    }
  };
}

function logDeprecated(data: ChatMessageData, logger: { debug: (o: object, m: string) => void }): void {
  const fields = (["agent_mode", "tools", "collections"] as const).filter((f) => data[f] !== undefined);
  if (fields.length > 0) logger.debug({ fields }, "deprecated chat_message fields accepted and ignored");
}
