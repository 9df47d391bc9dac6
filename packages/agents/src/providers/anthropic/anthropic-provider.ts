import Anthropic from "@anthropic-ai/sdk";
import type { FetchLike } from "../bounded-retry-fetch.js";
import { providerFetch } from "../idle-timeout-fetch.js";
import type { Provider } from "../provider.js";
import { streamFailure, toProviderErrorInfo } from "../provider-error.js";
import type { ProviderErrorInfo, ProviderEvent } from "../provider-event.js";
import type { ProviderRequest } from "../provider-request.js";
import { retryStalledStream } from "../retry-stalled-stream.js";
import { AnthropicStreamState } from "./anthropic-stream-state.js";
import { mapAnthropicRequest } from "./map-anthropic-request.js";

/** Settings of the Anthropic provider. */
export type AnthropicProviderOptions = {
  /** Provider id; "anthropic" unless a second Anthropic-shaped endpoint is configured. */
  id?: string;
  apiKey: string;
  baseURL?: string;
  /** SDK retries of failures before the stream starts (408/409/429/5xx/529, connection errors). */
  maxRetries: number;
  /** Time to response headers per attempt, in ms. */
  timeoutMs: number;
  /**
   * Longest silence once the response has started, in ms (default 60000). A stall fails the call;
   * it is made once more when nothing had been released yet (and `maxRetries` is not 0).
   */
  idleTimeoutMs?: number;
  /** A retry-after longer than this is not waited for; the error is reported instead. */
  maxRetryDelayMs: number;
  /** `max_tokens` when the request sets none (the API requires one). Default 8192. */
  defaultMaxTokens?: number;
  /** Enables extended thinking with this budget. */
  thinkingBudgetTokens?: number;
  /** Models `listModels` answers. */
  models?: readonly string[];
  fetch?: FetchLike;
};

/**
 * Provider over the Messages API with `@anthropic-ai/sdk`. Every stream ends with exactly one
 * `finish` (after an `error`, its reason is "error"), except when `signal` aborts: then the HTTP
 * request is aborted and the stream ends at once with no further event.
 */
export class AnthropicProvider implements Provider {
  readonly id: string;
  private readonly client: Anthropic;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.id = options.id ?? "anthropic";
    this.client = new Anthropic({
      apiKey: options.apiKey,
      authToken: null,
      baseURL: options.baseURL ?? null,
      maxRetries: options.maxRetries,
      timeout: options.timeoutMs,
      fetch: providerFetch(options),
    });
  }

  /** Streams one model turn as provider events; a stall before any event makes the call again. */
  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    return retryStalledStream(() => this.attempt(request, signal), this.options.maxRetries);
  }

  private async *attempt(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    if (signal.aborted) return;
    const body = mapAnthropicRequest(request, {
      defaultMaxTokens: this.options.defaultMaxTokens ?? 8192,
      ...(this.options.thinkingBudgetTokens
        ? { thinkingBudgetTokens: this.options.thinkingBudgetTokens }
        : {}),
    });
    let events: AsyncIterable<unknown>;
    let requestId: string | undefined;
    try {
      const started = await this.client.messages.create(body, { signal }).withResponse();
      events = started.data;
      requestId = started.request_id ?? undefined;
    } catch (err) {
      if (signal.aborted) return;
      yield* this.fail(toProviderErrorInfo(err, this.errorContext(true)));
      return;
    }
    const state = new AnthropicStreamState();
    try {
      for await (const event of events) yield* state.push(event);
    } catch (err) {
      // Includes the mid-stream `event: error` (e.g. overloaded_error), which the SDK throws.
      if (signal.aborted) return;
      yield* this.fail(toProviderErrorInfo(err, { ...this.errorContext(false), requestId }));
      return;
    }
    if (signal.aborted) return;
    if (!state.finished) {
      yield* this.fail(
        streamFailure("the stream ended before the model finished (connection closed early)", requestId),
      );
      return;
    }
    yield* state.finish();
  }

  /** The configured list of known models (the API's own list needs no round trip for this). */
  async listModels(): Promise<string[]> {
    return [...(this.options.models ?? [])];
  }

  private *fail(error: ProviderErrorInfo): Generator<ProviderEvent> {
    yield { type: "error", error };
    yield { type: "finish", reason: "error" };
  }

  private errorContext(beforeStream: boolean) {
    return { beforeStream, secrets: [this.options.apiKey], timeoutMs: this.options.timeoutMs };
  }
}
