/**
 * Models listed for `GET /api/providers` when the provider's own list is not fetched. Only a hint
 * for clients: any model name is passed through, so a new model needs no release.
 */
export const KNOWN_MODELS = {
  openai: [
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "gpt-4o",
    "gpt-4o-mini",
    "o3",
    "o4-mini",
    "gpt-5",
    "gpt-5-mini",
  ],
  anthropic: [
    "claude-sonnet-4-5",
    "claude-opus-4-1",
    "claude-haiku-4-5",
    "claude-sonnet-4-0",
    "claude-3-5-haiku-latest",
  ],
} as const;
