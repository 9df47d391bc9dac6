import { z } from "zod";

// Compatible servers disagree on nearly every field, so each leaf falls back to undefined instead of
// failing the whole chunk: a weird field is ignored, never a crash.
const str = z.string().nullish().catch(undefined);
const num = z.number().nullish().catch(undefined);

/** Arguments as a string; a few servers send the parsed object instead. */
const ToolArguments = z
  .union([z.string(), z.record(z.string(), z.unknown()).transform((o) => JSON.stringify(o))])
  .nullish()
  .catch(undefined);

export const OpenAIToolCallDelta = z.looseObject({
  index: num,
  id: str,
  type: str,
  function: z.looseObject({ name: str, arguments: ToolArguments }).nullish().catch(undefined),
});
export type OpenAIToolCallDelta = z.infer<typeof OpenAIToolCallDelta>;

const Delta = z.looseObject({
  content: str,
  refusal: str,
  /** llama.cpp, DeepSeek, vLLM reasoning parsers. */
  reasoning_content: str,
  /** OpenRouter, Ollama. */
  reasoning: str,
  tool_calls: z.array(OpenAIToolCallDelta).nullish().catch(undefined),
});

const Choice = z.looseObject({
  index: num,
  delta: Delta.nullish().catch(undefined),
  finish_reason: str,
});

export const OpenAIUsage = z.looseObject({
  prompt_tokens: num,
  completion_tokens: num,
  prompt_tokens_details: z.looseObject({ cached_tokens: num }).nullish().catch(undefined),
  completion_tokens_details: z.looseObject({ reasoning_tokens: num }).nullish().catch(undefined),
  /** DeepSeek reports cache hits here instead of prompt_tokens_details. */
  prompt_cache_hit_tokens: num,
});
export type OpenAIUsage = z.infer<typeof OpenAIUsage>;

/** One streamed Chat Completions chunk, as loosely as the compatible servers send it. */
export const OpenAIChunk = z.looseObject({
  id: str,
  object: str,
  /** vLLM's mid-stream error shape is `{"object":"error","message":…}`. */
  message: str,
  choices: z.array(Choice).nullish().catch(undefined),
  usage: OpenAIUsage.nullish().catch(undefined),
});
export type OpenAIChunk = z.infer<typeof OpenAIChunk>;
