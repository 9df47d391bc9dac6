import type { ProviderEvent } from "./provider-event.js";
import type { ProviderRequest } from "./provider-request.js";

/**
 * A model provider turns one request into a stream of events. It knows nothing of loops or
 * tools; failures are `error` events, not exceptions. Aborting `signal` ends the stream promptly.
 */
export interface Provider {
  /** The id clients use in `chat_message.provider` (e.g. "openai", "anthropic", "ollama"). */
  readonly id: string;
  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>;
  /** Models the provider knows, for `GET /api/providers`. */
  listModels?(signal?: AbortSignal): Promise<string[]>;
}
