import type { ModelMessage } from "./model-message.js";
import type { CallSettings } from "./model-settings.js";

/** A tool as the model sees it: name, description and JSON Schema of its arguments. */
export type ToolSpec = { name: string; description: string; inputSchema: Record<string, unknown> };

/** One model call. */
export type ProviderRequest = {
  model: string;
  systemPrompt: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  maxTokens?: number;
  /** The operator's settings for this call's scope and model; each provider maps what its API has. */
  settings?: CallSettings;
};
