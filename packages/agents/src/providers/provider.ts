import type { ProviderEvent } from "./provider-event.js";
import type { ProviderRequest } from "./provider-request.js";
import type { EmitProviderEvent } from "./pushed-events.js";

/**
 * A model provider turns one request into a stream of events. It knows nothing of loops or
 * tools; failures are `error` events, not exceptions. Aborting `signal` ends the stream promptly.
 */
export interface Provider {
  /** The id clients use in `chat_message.provider` (e.g. "openai", "anthropic", "ollama"). */
  readonly id: string;
  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>;
  /**
   * The same call, pushed: `emit` gets each event synchronously as the network read that carried it
   * completes, and the promise settles after the last one. Providers that read the network themselves
   * offer it (no promise or iterator per event); the loop prefers it to `stream`.
   */
  streamTo?(request: ProviderRequest, signal: AbortSignal, emit: EmitProviderEvent): Promise<void>;
  /** Models the provider knows, for `GET /api/providers`. */
  listModels?(signal?: AbortSignal): Promise<string[]>;
}
