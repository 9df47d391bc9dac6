import type { CommandHandlers } from "../command-router.js";
import { handleAnswer } from "./answer.js";
import { handleChatMessage } from "./chat-message.js";
import { handleClientToolsManifest } from "./client-tools-manifest.js";
import { handlePing } from "./ping.js";
import { handleResumeChat } from "./resume-chat.js";
import { handleStop } from "./stop.js";
import { handleToolApprovalResponse } from "./tool-approval-response.js";
import { handleToolResult } from "./tool-result.js";

/** The router's table as shipped; `createServer({ handlers })` replaces entries. */
export const defaultCommandHandlers: CommandHandlers = {
  chat_message: handleChatMessage,
  stop: handleStop,
  resume_chat: handleResumeChat,
  answer: handleAnswer,
  tool_approval_response: handleToolApprovalResponse,
  client_tools_manifest: handleClientToolsManifest,
  tool_result: handleToolResult,
  ping: handlePing,
};
