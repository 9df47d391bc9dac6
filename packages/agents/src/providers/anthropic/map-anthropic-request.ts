import type { ContentPart } from "@agentwire-chat/protocol";
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
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
  /** Extended thinking budget; thinking is off when unset. `settings.reasoning_effort` overrides it. */
  thinkingBudgetTokens?: number;
  /** Marks the prefix with `cache_control` breakpoints (see `markCacheBreakpoints`). */
  promptCache?: boolean;
};

/**
 * Thinking budget per reasoning effort. `minimal` turns thinking off (the Messages API has no
 * smaller setting than its 1024-token floor); the others grow by four.
 */
export const THINKING_BUDGET: Readonly<Record<ReasoningEffort, number | undefined>> = {
  minimal: undefined,
  low: 1024,
  medium: 4096,
  high: 16384,
};

/** The Messages API's floor for `budget_tokens`, and the room kept for the answer within `max_tokens`. */
const MIN_THINKING_BUDGET = 1024;

/** The API's limit on `cache_control` breakpoints per request. */
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
  const { maxTokens, budget } = thinkingPlan(request, options);
  const body: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: maxTokens,
    messages,
    stream: true,
  };
  // As a block array only when caching: the breakpoint goes on the block; otherwise the plain string.
  if (request.systemPrompt) {
    body.system = options.promptCache ? [{ type: "text", text: request.systemPrompt }] : request.systemPrompt;
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map(mapTool);
    if (settings.parallel_tool_calls === false) {
      body.tool_choice = { type: "auto", disable_parallel_tool_use: true };
    }
  }
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget };
  // With thinking on the API refuses any temperature but 1, so the operator's value is dropped
  // rather than failing every call of the scope.
  else if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (options.promptCache) markCacheBreakpoints(body);
  return body;
}

/**
 * `max_tokens` and the thinking budget. `reasoning_effort` picks the budget from THINKING_BUDGET
 * (else the provider's `thinkingBudgetTokens`). The API wants `budget_tokens < max_tokens`: when the
 * request set no limit, the budget is added on top of the default so the answer keeps its room; when
 * it set one, the budget is cut to leave 1024 tokens for the answer, and thinking stays off when less
 * than the API's 1024-token floor would remain.
 */
function thinkingPlan(
  request: ProviderRequest,
  options: AnthropicRequestOptions,
): { maxTokens: number; budget: number | undefined } {
  const effort = request.settings?.reasoning_effort;
  if (effort === undefined) {
    const maxTokens = request.maxTokens ?? options.defaultMaxTokens;
    const budget = options.thinkingBudgetTokens;
    const fits = budget !== undefined && budget >= MIN_THINKING_BUDGET && budget < maxTokens;
    return { maxTokens, budget: fits ? budget : undefined };
  }
  const wanted = THINKING_BUDGET[effort];
  if (wanted === undefined)
    return { maxTokens: request.maxTokens ?? options.defaultMaxTokens, budget: undefined };
  if (request.maxTokens === undefined)
    return { maxTokens: options.defaultMaxTokens + wanted, budget: wanted };
  const budget = Math.min(wanted, request.maxTokens - MIN_THINKING_BUDGET);
  return { maxTokens: request.maxTokens, budget: budget >= MIN_THINKING_BUDGET ? budget : undefined };
}

/**
 * Puts at most four `cache_control` breakpoints where the next call reads the longest prefix.
 * The cache is keyed on the prefix in the order tools → system → messages, and a breakpoint
 * writes the prefix up to its block. So:
 * 1. the last tool: the tools rarely change, and a changed system prompt then still reads them;
 * 2. the system prompt: tools + system are the stable prefix of every call of the thread;
 * 3. the last cacheable block of the newest message: the next step of a tool loop (this history plus
 *    one assistant message and its tool results) and the next turn read up to here;
 * 4. the last block of the user message before the newest one: what the previous call wrote at its
 *    breakpoint 3, so this call reads it even if it lies more than the API's 20-block look-back
 *    before breakpoint 3 (many parallel tool results), and a failed write at 3 still leaves a read.
 * Thinking blocks cannot carry `cache_control` (the API refuses it), so a message ending in one
 * uses its last other block; empty text never reaches here (dropped while mapping).
 */
function markCacheBreakpoints(body: MessageCreateParamsStreaming): void {
  let left = MAX_CACHE_BREAKPOINTS;
  const lastTool = body.tools?.at(-1);
  if (lastTool) {
    lastTool.cache_control = { type: "ephemeral" };
    left--;
  }
  if (Array.isArray(body.system) && body.system.length > 0) {
    body.system.at(-1)!.cache_control = { type: "ephemeral" };
    left--;
  }
  const messages = body.messages;
  const newest = messages.length - 1;
  if (newest < 0) return;
  if (left > 0 && markLastBlock(messages[newest]!)) left--;
  const previousUser = messages.findLastIndex((m, i) => i < newest && m.role === "user");
  if (left > 0 && previousUser >= 0) markLastBlock(messages[previousUser]!);
}

function markLastBlock(message: MessageParam): boolean {
  if (!Array.isArray(message.content)) return false;
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i]!;
    if (block.type === "thinking" || block.type === "redacted_thinking") continue;
    (block as { cache_control?: { type: "ephemeral" } }).cache_control = { type: "ephemeral" };
    return true;
  }
  return false;
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
