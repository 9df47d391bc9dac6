import type { ClientCommandName } from "@agentwire-chat/protocol";
import type { ChatCommandHandler } from "../chat/chat-command-handler.js";
import type { ChatServices } from "../chat/chat-services.js";
import { handleAnswer } from "../chat/handle-answer.js";
import { handleContinueTurn } from "../chat/handle-continue-turn.js";
import { handlePlanDecision } from "../chat/handle-plan-decision.js";
import { handleResumeChat } from "../chat/handle-resume-chat.js";
import { handleStop } from "../chat/handle-stop.js";
import { handleToolApprovalResponse } from "../chat/handle-tool-approval-response.js";
import { handleSubscribeThreads } from "../chat/thread-states/handle-subscribe-threads.js";
import type { CommandHandler, CommandHandlers } from "../ws/command-router.js";
import type { AgentwireServices } from "./agentwire-services.js";
import { chatMessageHandler } from "./handle-chat-message.js";

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
  };
}
