import type { ContentPart } from "@agentwire-chat/protocol";

/** A thinking block as the provider produced it; `signature` must be sent back unchanged. */
export type ThinkingBlock = { text: string; signature?: string; redactedData?: string };

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
