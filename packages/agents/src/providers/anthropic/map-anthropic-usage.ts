import type { ProviderUsage } from "../provider-event.js";
import type { AnthropicUsage } from "./anthropic-stream-event.js";

/**
 * Maps Messages usage to the OpenAI convention the rest of the core uses: `inputTokens` is the whole
 * prompt, cache reads and writes included (Anthropic's `input_tokens` excludes them).
 */
export function mapAnthropicUsage(usage: AnthropicUsage): ProviderUsage {
  const out: ProviderUsage = {};
  const cacheRead = usage.cache_read_input_tokens ?? undefined;
  const cacheWrite = usage.cache_creation_input_tokens ?? undefined;
  if (typeof usage.input_tokens === "number") {
    out.inputTokens = usage.input_tokens + (cacheRead ?? 0) + (cacheWrite ?? 0);
  }
  if (typeof usage.output_tokens === "number") out.outputTokens = usage.output_tokens;
  if (typeof cacheRead === "number") out.cacheReadTokens = cacheRead;
  if (typeof cacheWrite === "number") out.cacheWriteTokens = cacheWrite;
  return out;
}
