import type { ClientCommandName } from "@agentwire-chat/protocol";
import type { ChatServices } from "../chat/chat-services.js";
import type { CommandHandler, CommandHandlers } from "../ws/command-router.js";
import type { AgentwireServices } from "./agentwire-services.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";
import { handleAnswer } from "./handle-answer.js";
import { handleCancelQueued } from "./handle-cancel-queued.js";
import { chatMessageHandler } from "./handle-chat-message.js";
import { handleContinueTurn } from "./handle-continue-turn.js";
import { handlePlanDecision } from "./handle-plan-decision.js";
import { handleRegenerate } from "./handle-regenerate.js";
import { handleResumeChat } from "./handle-resume-chat.js";
import { handleStop } from "./handle-stop.js";
import { handleSubscribeThreads } from "./handle-subscribe-threads.js";
import { handleToolApprovalResponse } from "./handle-tool-approval-response.js";

/** The chat turn's entries of the command table, bound to the chat services (and the routes' own). */
export function chatCommandHandlers(services: AgentwireServices & { chat: ChatServices }): CommandHandlers {
  const { chat } = services;
  const bind =
    <C extends ClientCommandName>(handler: ChatCommandHandler<C>): CommandHandler<C> =>
    (frame, conn) =>
      handler(frame, conn, chat);
  return {
    chat_message: chatMessageHandler(services),
    stop: bind(handleStop),
    resume_chat: bind(handleResumeChat),
    answer: bind(handleAnswer),
    tool_approval_response: bind(handleToolApprovalResponse),
    subscribe_threads: bind(handleSubscribeThreads),
    plan_decision: bind(handlePlanDecision),
    continue_turn: bind(handleContinueTurn),
    regenerate: bind(handleRegenerate),
    cancel_queued: bind(handleCancelQueued),
  };
}
