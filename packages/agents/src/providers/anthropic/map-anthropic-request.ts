import type { ContentPart } from "@agentwire-chat/protocol";
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type { AssistantModelMessage, ToolModelMessage, UserModelMessage } from "../model-message.js";
import { pairToolResults } from "../pair-tool-results.js";
import type { ProviderRequest, ToolSpec } from "../provider-request.js";

/** Settings the Messages API needs that a provider-neutral request does not carry. */
export type AnthropicRequestOptions = {
  /** `max_tokens` is required by the API; used when the request sets none. */
  defaultMaxTokens: number;
  /** Extended thinking budget; thinking is off when unset. */
  thinkingBudgetTokens?: number;
};

type ImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

/** Maps a provider-neutral request to a streamed Messages request body. */
export function mapAnthropicRequest(
  request: ProviderRequest,
  options: AnthropicRequestOptions,
): MessageCreateParamsStreaming {
  const messages: MessageParam[] = [];
  for (const step of pairToolResults(request.messages)) {
    if (step.kind === "tool-results") append(messages, "user", step.results.map(mapToolResult));
    else if (step.message.role === "user") append(messages, "user", mapUser(step.message));
    else append(messages, "assistant", mapAssistant(step.message));
  }
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens;
  const body: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: maxTokens,
    messages,
    stream: true,
  };
  if (request.systemPrompt) body.system = request.systemPrompt;
  if (request.tools.length > 0) body.tools = request.tools.map(mapTool);
  const budget = options.thinkingBudgetTokens;
  // The API requires budget_tokens < max_tokens; a budget that does not fit leaves thinking off.
  if (budget !== undefined && budget >= 1024 && budget < maxTokens) {
    body.thinking = { type: "enabled", budget_tokens: budget };
  }
  return body;
}

// The API wants alternating roles and rejects empty content, so same-role turns are merged and
// empty ones dropped (tool results land first in their user message, as the API requires).
function append(messages: MessageParam[], role: "user" | "assistant", blocks: ContentBlockParam[]): void {
  if (blocks.length === 0) return;
  const last = messages.at(-1);
  if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
  else messages.push({ role, content: blocks });
}

function mapUser(message: UserModelMessage): ContentBlockParam[] {
  if (typeof message.content === "string") return textBlocks(message.content);
  return message.content.flatMap((part) => (part.type === "text" ? textBlocks(part.text) : [mapImage(part)]));
}

function mapAssistant(message: AssistantModelMessage): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  // Thinking goes back first and byte for byte: the API checks the signature. Unsigned thinking
  // (from another provider) cannot be verified and is left out.
  for (const t of message.thinking ?? []) {
    if (t.redactedData) blocks.push({ type: "redacted_thinking", data: t.redactedData });
    else if (t.signature) blocks.push({ type: "thinking", thinking: t.text, signature: t.signature });
  }
  blocks.push(...textBlocks(message.text));
  for (const call of message.toolCalls ?? []) {
    blocks.push({ type: "tool_use", id: toolUseId(call.id), name: call.name, input: asObject(call.args) });
  }
  return blocks;
}

function mapToolResult(result: ToolModelMessage): ContentBlockParam {
  const block: ContentBlockParam = { type: "tool_result", tool_use_id: toolUseId(result.toolCallId) };
  if (result.content !== "") block.content = result.content;
  if (result.isError) block.is_error = true;
  return block;
}

function mapImage(part: Extract<ContentPart, { type: "image" }>): ImageBlockParam {
  const media = part.mime_type as ImageMediaType;
  if (part.data !== undefined)
    return { type: "image", source: { type: "base64", media_type: media, data: part.data } };
  const dataUri = /^data:([^;,]+);base64,(.*)$/s.exec(part.uri ?? "");
  if (dataUri) {
    return {
      type: "image",
      source: { type: "base64", media_type: dataUri[1] as ImageMediaType, data: dataUri[2]! },
    };
  }
  return { type: "image", source: { type: "url", url: part.uri ?? "" } };
}

function mapTool(tool: ToolSpec): Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object", ...tool.inputSchema } as Tool.InputSchema,
  };
}

function textBlocks(text: string): ContentBlockParam[] {
  return text.trim() === "" ? [] : [{ type: "text", text }];
}

/** Tool ids from other providers may hold characters the Messages API rejects (`^[a-zA-Z0-9_-]+$`). */
function toolUseId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_") || "toolu_unknown";
}

function asObject(args: unknown): Record<string, unknown> {
  return typeof args === "object" && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : {};
}
