import type { ContentPart } from "@agentwire-chat/protocol";
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type { AssistantModelMessage, ToolModelMessage, UserModelMessage } from "../model-message.js";
import type { ReasoningEffort } from "../model-settings.js";
import { pairToolResults } from "../pair-tool-results.js";
import type { ProviderRequest, ToolSpec } from "../provider-request.js";

/** Settings the Messages API needs that a provider-neutral request does not carry. */
export type AnthropicRequestOptions = {
  /** `max_tokens` is required by the API; used when the request sets none. */
  defaultMaxTokens: number;
  /** Extended thinking budget; thinking is off when unset. A call's `reasoning_effort` replaces it. */
  thinkingBudgetTokens?: number;
  /** `cache_control` breakpoints on the stable prefix and the conversation (ANTHROPIC_PROMPT_CACHE). */
  promptCache?: boolean;
};

/**
 * Extended thinking budgets per `reasoning_effort`. `minimal` turns thinking off: Anthropic's smallest
 * budget (1024) is already more than OpenAI's minimal effort spends.
 */
export const THINKING_BUDGETS: Readonly<Record<ReasoningEffort, number | undefined>> = {
  minimal: undefined,
  low: 2048,
  medium: 8192,
  high: 24_576,
};

/** The API's limit of `cache_control` breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

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
  const settings = request.settings ?? {};
  const effort = settings.reasoning_effort;
  const budget = effort !== undefined ? THINKING_BUDGETS[effort] : options.thinkingBudgetTokens;
  // max_tokens counts thinking too: an effort with no operator cap gets its budget on top of the
  // default answer length, so `high` does not eat the answer.
  const maxTokens =
    request.maxTokens ??
    options.defaultMaxTokens + (effort !== undefined && budget !== undefined ? budget : 0);
  const body: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: maxTokens,
    messages,
    stream: true,
  };
  if (request.systemPrompt) body.system = request.systemPrompt;
  if (request.tools.length > 0) body.tools = request.tools.map(mapTool);
  // The API requires budget_tokens < max_tokens; a budget that does not fit leaves thinking off.
  const thinking = budget !== undefined && budget >= 1024 && budget < maxTokens;
  if (thinking) body.thinking = { type: "enabled", budget_tokens: budget };
  // The API refuses a temperature with thinking on; the operator's effort wins over the temperature.
  if (settings.temperature !== undefined && !thinking) body.temperature = settings.temperature;
  if (settings.parallel_tool_calls === false && request.tools.length > 0)
    body.tool_choice = { type: "auto", disable_parallel_tool_use: true };
  if (options.promptCache) markCacheBreakpoints(body);
  return body;
}

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * Marks where the prompt cache may cut, at most MAX_CACHE_BREAKPOINTS, in the API's prefix order
 * (tools, system, messages):
 * 1. the last tool: the toolbelt alone stays cached when the system prompt changes (its scratchpad,
 *    summary and date move between turns, the tools do not);
 * 2. the system prompt: tools and instructions, the same on every step of a turn;
 * 3. the newest message's last block: this call writes the conversation so far, and the next step of
 *    the tool loop (or the next turn) reads it back;
 * 4. the last block of the user message before it: where the previous call's write ended. The API
 *    looks back only 20 blocks from a breakpoint for an earlier entry, and one step with many
 *    parallel results adds more than that; this one lands on the previous entry exactly.
 * Thinking blocks cannot carry `cache_control`, so a message's last other block does.
 */
function markCacheBreakpoints(body: MessageCreateParamsStreaming): void {
  const lastTool = body.tools?.at(-1);
  if (lastTool) lastTool.cache_control = EPHEMERAL;
  if (typeof body.system === "string") {
    const system: TextBlockParam[] = [{ type: "text", text: body.system, cache_control: EPHEMERAL }];
    body.system = system;
  }
  const messages = body.messages;
  const newest = messages.length - 1;
  if (newest < 0) return;
  markLastBlock(messages[newest]!);
  for (let i = newest - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") {
      markLastBlock(messages[i]!);
      break;
    }
  }
}

function markLastBlock(message: MessageParam): void {
  if (typeof message.content === "string") {
    message.content = [{ type: "text", text: message.content, cache_control: EPHEMERAL }];
    return;
  }
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i]!;
    if (block.type === "thinking" || block.type === "redacted_thinking") continue;
    (block as { cache_control?: typeof EPHEMERAL }).cache_control = EPHEMERAL;
    return;
  }
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
