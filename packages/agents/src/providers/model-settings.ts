import { z } from "zod";

/** How hard a reasoning model thinks: OpenAI's `reasoning.effort`, Anthropic's thinking budget. */
export const ReasoningEffort = z.enum(["minimal", "low", "medium", "high"]);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

/**
 * Sampling and output settings of a model call, set by the operator per context scope and per model
 * (never by the client: server policy, like the toolbelt). Strict: an unknown key is refused at start.
 * `max_output_tokens` reaches providers as `ProviderRequest.maxTokens`; the others as `settings`.
 */
export const ModelSettings = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  max_output_tokens: z.number().int().positive().max(1_000_000).optional(),
  reasoning_effort: ReasoningEffort.optional(),
  parallel_tool_calls: z.boolean().optional(),
});
export type ModelSettings = z.infer<typeof ModelSettings>;

/** What a provider maps from the settings (`max_output_tokens` travels as `maxTokens`). */
export type CallSettings = Omit<ModelSettings, "max_output_tokens">;
