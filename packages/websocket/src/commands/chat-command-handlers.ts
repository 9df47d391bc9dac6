import { handleAnswer } from "../chat/handle-answer.js";
import { handlePlanDecision } from "../chat/handle-plan-decision.js";
import { handleResumeChat } from "../chat/handle-resume-chat.js";
import { handleStop } from "../chat/handle-stop.js";
import { handleToolApprovalResponse } from "../chat/handle-tool-approval-response.js";
import { handleSubscribeThreads } from "../chat/thread-states/handle-subscribe-threads.js";
import type { CommandHandlers } from "../ws/command-router.js";
import { handleChatMessage } from "./handle-chat-message.js";

/** The chat turn's entries of the command table; pass to `createServer({ handlers })`. */
export const chatCommandHandlers = {
  chat_message: handleChatMessage,
  stop: handleStop,
  resume_chat: handleResumeChat,
  answer: handleAnswer,
  tool_approval_response: handleToolApprovalResponse,
  subscribe_threads: handleSubscribeThreads,
  plan_decision: handlePlanDecision,
} satisfies Partial<CommandHandlers>;
