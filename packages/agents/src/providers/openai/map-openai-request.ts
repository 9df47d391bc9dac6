import type { ContentPart } from "@agentwire-chat/protocol";
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { AssistantModelMessage, UserModelMessage } from "../model-message.js";
import { pairToolResults } from "../pair-tool-results.js";
import type { ProviderRequest, ToolSpec } from "../provider-request.js";

/** How the endpoint expects the output limit: OpenAI's reasoning models reject `max_tokens`. */
export type MaxTokensField = "max_completion_tokens" | "max_tokens";

/** Maps a provider-neutral request to a streamed Chat Completions request body. */
export function mapOpenAIRequest(
  request: ProviderRequest,
  maxTokensField: MaxTokensField = "max_completion_tokens",
): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.systemPrompt) messages.push({ role: "system", content: request.systemPrompt });
  for (const step of pairToolResults(request.messages)) {
    if (step.kind === "tool-results") {
      for (const r of step.results)
        messages.push({ role: "tool", tool_call_id: r.toolCallId, content: r.content });
    } else if (step.message.role === "user") {
      messages.push(mapUser(step.message));
    } else {
      messages.push(mapAssistant(step.message));
    }
  }
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  // An empty `tools` array is rejected by some servers, and parallel_tool_calls without tools by OpenAI.
  if (request.tools.length > 0) body.tools = request.tools.map(mapTool);
  if (request.maxTokens !== undefined) body[maxTokensField] = request.maxTokens;
  const settings = request.settings;
  if (settings) {
    // Each only when the operator set it: a compatible server may not know the field at all.
    if (settings.temperature !== undefined) body.temperature = settings.temperature;
    if (settings.reasoning_effort !== undefined) body.reasoning_effort = settings.reasoning_effort;
    if (settings.parallel_tool_calls !== undefined && request.tools.length > 0)
      body.parallel_tool_calls = settings.parallel_tool_calls;
  }
  return body;
}

function mapUser(message: UserModelMessage): ChatCompletionMessageParam {
  if (typeof message.content === "string") return { role: "user", content: message.content };
  return { role: "user", content: message.content.map(mapPart) };
}

function mapPart(part: ContentPart): ChatCompletionContentPart {
  if (part.type === "text") return { type: "text", text: part.text };
  const url = part.uri ?? `data:${part.mime_type};base64,${part.data ?? ""}`;
  return { type: "image_url", image_url: { url } };
}

function mapAssistant(message: AssistantModelMessage): ChatCompletionMessageParam {
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return { role: "assistant", content: message.text };
  return {
    role: "assistant",
    content: message.text === "" ? null : message.text,
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: "function" as const,
      function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    })),
  };
}

function mapTool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}
