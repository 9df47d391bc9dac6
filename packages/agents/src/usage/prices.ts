/** USD per million tokens. */
export type ModelPrice = { input: number; output: number; cacheRead: number; cacheWrite: number };

const openai = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheRead,
  // OpenAI bills no cache writes: writing is the ordinary input price.
  cacheWrite: input,
});
const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  // Anthropic: 5-minute cache writes cost 1.25x input, cache reads 0.1x.
  cacheRead: input * 0.1,
  cacheWrite: input * 1.25,
});

/**
 * List prices of the models we know (published by OpenAI and Anthropic, 2025). A model missing here
 * has `cost_known: false`; we never guess a price from a similar name.
 */
export const modelPrices: Readonly<Record<string, ModelPrice>> = {
  "gpt-4o": openai(2.5, 10, 1.25),
  "gpt-4o-mini": openai(0.15, 0.6, 0.075),
  "gpt-4.1": openai(2, 8, 0.5),
  "gpt-4.1-mini": openai(0.4, 1.6, 0.1),
  "gpt-4.1-nano": openai(0.1, 0.4, 0.025),
  o3: openai(2, 8, 0.5),
  "o3-mini": openai(1.1, 4.4, 0.55),
  "o4-mini": openai(1.1, 4.4, 0.275),
  "gpt-5": openai(1.25, 10, 0.125),
  "gpt-5-mini": openai(0.25, 2, 0.025),
  "gpt-5-nano": openai(0.05, 0.4, 0.005),
  "claude-opus-4-1": anthropic(15, 75),
  "claude-opus-4-0": anthropic(15, 75),
  "claude-opus-4-5": anthropic(5, 25),
  "claude-sonnet-4-5": anthropic(3, 15),
  "claude-sonnet-4-0": anthropic(3, 15),
  "claude-3-7-sonnet": anthropic(3, 15),
  "claude-haiku-4-5": anthropic(1, 5),
  "claude-3-5-haiku": anthropic(0.8, 4),
};

// Dated snapshots ("gpt-4o-2024-08-06", "claude-sonnet-4-5-20250929") and "-latest" share the base price.
const suffix = /-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;
const aliases: Readonly<Record<string, string>> = {
  "claude-opus-4": "claude-opus-4-0",
  "claude-sonnet-4": "claude-sonnet-4-0",
};

/** The price of a model by exact name (dated snapshots included), or undefined when unknown. */
export function priceOf(model: string): ModelPrice | undefined {
  const base = model.replace(suffix, "");
  const name = aliases[base] ?? base;
  return Object.hasOwn(modelPrices, name) ? modelPrices[name] : undefined;
}
