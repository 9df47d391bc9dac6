import type { ProviderUsage } from "../provider-event.js";
import type { OpenAIUsage } from "./openai-chunk.js";

/**
 * Maps Chat Completions usage. `inputTokens` is the whole prompt (cached tokens included, as OpenAI
 * counts them); a field the server did not report stays undefined.
 */
export function mapOpenAIUsage(usage: OpenAIUsage): ProviderUsage {
  const out: ProviderUsage = {};
  if (typeof usage.prompt_tokens === "number") out.inputTokens = usage.prompt_tokens;
  if (typeof usage.completion_tokens === "number") out.outputTokens = usage.completion_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens;
  if (typeof cached === "number") out.cacheReadTokens = cached;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") out.reasoningTokens = reasoning;
  return out;
}
