import type { ContentPart } from "@agentwire-chat/protocol";

/**
 * One reasoning item of OpenAI's Responses API, to send back in the next call's `input` (with
 * `store: false` the encrypted content is the only copy of the model's reasoning).
 */
export type ResponsesReasoning = { id: string; encryptedContent?: string; summary: string[] };

/**
 * A thinking block as the provider produced it, sent back unchanged: Anthropic's `signature` or
 * `redactedData`, or OpenAI Responses' `reasoning` item (its summary is `text`). Each provider sends
 * back only its own kind.
 */
export type ThinkingBlock = {
  text: string;
  signature?: string;
  redactedData?: string;
  reasoning?: ResponsesReasoning;
};

export type ModelToolCall = { id: string; name: string; args: unknown };

export type UserModelMessage = { role: "user"; content: string | ContentPart[] };
export type AssistantModelMessage = {
  role: "assistant";
  text: string;
  thinking?: ThinkingBlock[];
  toolCalls?: ModelToolCall[];
};
/** A tool's result, paired with its call by `toolCallId`. */
export type ToolModelMessage = {
  role: "tool";
  toolCallId: string;
  name: string;
  content: string;
  isError?: boolean;
};

/** Provider-neutral conversation history; adapters map it to their API's shape. */
export type ModelMessage = UserModelMessage | AssistantModelMessage | ToolModelMessage;
