import type { ProviderUsage } from "../provider-event.js";
import type { ResponsesUsage } from "./responses-event.js";

/**
 * Maps Responses usage. `inputTokens` is the whole prompt, cached tokens included (as OpenAI counts
 * them and the ledger expects); a field the server did not report stays undefined.
 */
export function mapResponsesUsage(usage: ResponsesUsage): ProviderUsage {
  const out: ProviderUsage = {};
  if (typeof usage.input_tokens === "number") out.inputTokens = usage.input_tokens;
  if (typeof usage.output_tokens === "number") out.outputTokens = usage.output_tokens;
  const cached = usage.input_tokens_details?.cached_tokens;
  if (typeof cached === "number") out.cacheReadTokens = cached;
  const written = usage.input_tokens_details?.cache_write_tokens;
  if (typeof written === "number" && written > 0) out.cacheWriteTokens = written;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") out.reasoningTokens = reasoning;
  return out;
}
