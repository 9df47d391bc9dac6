import type { ContentPart } from "@agentwire-chat/protocol";
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputContent,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import type { AssistantModelMessage, UserModelMessage } from "../model-message.js";
import { pairToolResults } from "../pair-tool-results.js";
import type { ProviderRequest, ToolSpec } from "../provider-request.js";

/**
 * Models that reason (o-series, gpt-5 family but gpt-5-chat), with or without a provider prefix
 * ("openai/o3"). Other models refuse both `reasoning` and the encrypted-content include ("Encrypted
 * content is not supported with this model"), so those go only to these, or wherever the operator set
 * `reasoning_effort` (a compatible endpoint's reasoning model under another name).
 */
const REASONING_MODEL = /(?:^|\/)(?:o\d|gpt-5(?!(?:\.\d+)?-chat))/i;

/** True when the call asks for reasoning: the operator set an effort, or the model name is a reasoning model's. */
export function wantsReasoning(request: ProviderRequest): boolean {
  return request.settings?.reasoning_effort !== undefined || REASONING_MODEL.test(request.model);
}

/**
 * Maps a provider-neutral request to a streamed Responses request. Nothing is kept on OpenAI's side
 * (`store: false`); a reasoning model's reasoning comes back encrypted in the answer and goes out again in the next
 * call's `input`, which is how a reasoning model keeps its thoughts across the steps of a tool loop.
 */
export function mapResponsesRequest(request: ProviderRequest): ResponseCreateParamsStreaming {
  const input: ResponseInputItem[] = [];
  for (const step of pairToolResults(request.messages)) {
    if (step.kind === "tool-results") {
      for (const r of step.results)
        input.push({ type: "function_call_output", call_id: r.toolCallId, output: r.content });
    } else if (step.message.role === "user") {
      input.push(mapUser(step.message));
    } else {
      input.push(...mapAssistant(step.message));
    }
  }
  const body: ResponseCreateParamsStreaming = {
    model: request.model,
    input,
    stream: true,
    store: false,
  };
  if (request.systemPrompt) body.instructions = request.systemPrompt;
  if (request.tools.length > 0) body.tools = request.tools.map(mapTool);
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  const settings = request.settings ?? {};
  if (wantsReasoning(request)) {
    // With store:false the encrypted content is the only copy of the reasoning: without it, an item
    // sent back by id is "not found".
    body.include = ["reasoning.encrypted_content"];
    body.reasoning = { summary: "auto" };
    if (settings.reasoning_effort !== undefined) body.reasoning.effort = settings.reasoning_effort;
  }
  // The operator's choice is passed as given: reasoning models refuse `temperature`, and saying so
  // (the API's 400) beats dropping a setting quietly.
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.parallel_tool_calls !== undefined && request.tools.length > 0)
    body.parallel_tool_calls = settings.parallel_tool_calls;
  return body;
}

function mapUser(message: UserModelMessage): ResponseInputItem {
  if (typeof message.content === "string") return { role: "user", content: message.content };
  return { role: "user", content: message.content.map(mapPart) };
}

function mapPart(part: ContentPart): ResponseInputContent {
  if (part.type === "text") return { type: "input_text", text: part.text };
  const url = part.uri ?? `data:${part.mime_type};base64,${part.data ?? ""}`;
  return { type: "input_image", image_url: url, detail: "auto" };
}

/**
 * An assistant turn as the items the model produced, in its order: reasoning, then the message, then
 * the calls. Only Responses reasoning goes back (Anthropic's signed blocks mean nothing here), and only
 * with its encrypted content: with `store: false` an item sent by id alone is not found.
 */
function mapAssistant(message: AssistantModelMessage): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const block of message.thinking ?? []) {
    const reasoning = block.reasoning;
    if (!reasoning?.encryptedContent) continue;
    items.push({
      type: "reasoning",
      id: reasoning.id,
      encrypted_content: reasoning.encryptedContent,
      summary: reasoning.summary.map((text) => ({ type: "summary_text" as const, text })),
    });
  }
  if (message.text !== "") {
    // The API takes earlier answers as output_text; the SDK types only the output item (with its id).
    items.push({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: message.text, annotations: [] }],
    } as unknown as ResponseInputItem);
  }
  for (const call of message.toolCalls ?? []) {
    items.push({
      type: "function_call",
      call_id: call.id,
      name: call.name,
      arguments: JSON.stringify(call.args ?? {}),
    });
  }
  return items;
}

function mapTool(tool: ToolSpec): FunctionTool {
  // Not strict: strict mode demands every property be required and no extra ones, which MCP and
  // operator tools' schemas rarely are.
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
    strict: false,
  };
}
