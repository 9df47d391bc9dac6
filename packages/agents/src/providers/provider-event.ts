import type { ResponsesReasoning } from "./model-message.js";

/** Token counts of one call; a field is undefined when the provider did not report it (unknown, not zero). */
export type ProviderUsage = {
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
};

export type FinishReason = "stop" | "tool_calls" | "length" | "error";

/** A failure of the provider call, as data; never carries a key or raw HTML. */
export type ProviderErrorInfo = {
  message: string;
  status?: number;
  requestId?: string;
  /** True when no byte of the response had been streamed yet. */
  beforeStream?: boolean;
  /** True when the provider went silent past the idle timeout and the request was aborted. */
  stalled?: boolean;
};

export type TextDeltaEvent = { type: "text-delta"; text: string };
/** Thinking text; a `signature`, `redactedData` or Responses `reasoning` item closes the current thinking block. */
export type ThinkingDeltaEvent = {
  type: "thinking-delta";
  text: string;
  signature?: string;
  redactedData?: string;
  reasoning?: ResponsesReasoning;
};
/**
 * A complete tool call. When the model's arguments could not be parsed, `args` is undefined and
 * `invalidArgs` says why; the loop turns that into an error result for the model, never a crash.
 */
export type ToolCallEvent = {
  type: "tool-call";
  id: string;
  name: string;
  args: unknown;
  invalidArgs?: { raw: string; message: string };
};
export type UsageEvent = { type: "usage"; usage: ProviderUsage };
export type FinishEvent = { type: "finish"; reason: FinishReason };
/** A stream failure; the stream ends after it (a `finish {reason:"error"}` may follow). */
export type ErrorEvent = { type: "error"; error: ProviderErrorInfo };

/** Everything a provider stream yields, discriminated by `type`. */
export type ProviderEvent =
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | ToolCallEvent
  | UsageEvent
  | FinishEvent
  | ErrorEvent;
