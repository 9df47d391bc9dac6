import type { CommandHandlers } from "../ws/command-router.js";
import { handleAnswer } from "./handle-answer.js";
import { handleChatMessage } from "./handle-chat-message.js";
import { handleResumeChat } from "./handle-resume-chat.js";
import { handleStop } from "./handle-stop.js";
import { handleToolApprovalResponse } from "./handle-tool-approval-response.js";

/** The chat turn's entries of the command table; pass to `createServer({ handlers })`. */
export const chatCommandHandlers = {
  chat_message: handleChatMessage,
  stop: handleStop,
  resume_chat: handleResumeChat,
  answer: handleAnswer,
  tool_approval_response: handleToolApprovalResponse,
} satisfies Partial<CommandHandlers>;
