import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { FetchLike } from "../bounded-retry-fetch.js";
import { type HttpTransport, providerTransport } from "../http-transport.js";
import { DEFAULT_IDLE_TIMEOUT_MS } from "../idle-timeout-fetch.js";
import type { Provider } from "../provider.js";
import { toProviderErrorInfo } from "../provider-error.js";
import type { ProviderEvent } from "../provider-event.js";
import type { ProviderRequest } from "../provider-request.js";
import { type EmitProviderEvent, pushedEvents } from "../pushed-events.js";
import { retryStalledStream } from "../retry-stalled-stream.js";
import { emitFailure, type ReadMessage, readToEnd } from "../stream-call.js";
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
  /** `cache_control` breakpoints on the stable prefix and the conversation; default true. */
  promptCache?: boolean;
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
  /** Absent when a fetch was given: its bodies are read as web streams. */
  private readonly transport: HttpTransport | undefined;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.id = options.id ?? "anthropic";
    const { transport, fetch } = providerTransport(options);
    this.transport = transport;
    this.client = new Anthropic({
      apiKey: options.apiKey,
      authToken: null,
      baseURL: options.baseURL ?? null,
      maxRetries: options.maxRetries,
      timeout: options.timeoutMs,
      fetch,
    });
  }

  /** Streams one model turn as provider events; a stall before any event makes the call again. */
  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    return pushedEvents((emit) => this.streamTo(request, signal, emit));
  }

  /** `stream`, pushed: each event is emitted within the network read that completed it. */
  streamTo(request: ProviderRequest, signal: AbortSignal, emit: EmitProviderEvent): Promise<void> {
    return retryStalledStream(
      (out, callSignal) => this.attempt(request, callSignal, out),
      signal,
      this.options.maxRetries,
      emit,
    );
  }

  private async attempt(
    request: ProviderRequest,
    signal: AbortSignal,
    emit: EmitProviderEvent,
  ): Promise<void> {
    if (signal.aborted) return;
    const body = mapAnthropicRequest(request, {
      defaultMaxTokens: this.options.defaultMaxTokens ?? 8192,
      promptCache: this.options.promptCache ?? true,
      ...(this.options.thinkingBudgetTokens
        ? { thinkingBudgetTokens: this.options.thinkingBudgetTokens }
        : {}),
    });
    let response: Response;
    try {
      response = await this.client.messages.create(body, { signal }).asResponse();
    } catch (err) {
      if (!signal.aborted) emitFailure(emit, toProviderErrorInfo(err, this.errorContext(true)));
      return;
    }
    const requestId = response.headers.get("request-id") ?? undefined;
    const midStream = { ...this.errorContext(false), requestId };
    const state = new AnthropicStreamState();
    // What the SDK's stream does with each message, without its iterators: the Messages events are
    // JSON, `ping` is nothing, `error` (e.g. overloaded_error mid-stream) is an APIError.
    const read: ReadMessage = (message) => {
      const name = message.event;
      if (name === "error") {
        const body = safeJson(message.data) ?? message.data;
        return toProviderErrorInfo(new APIError(undefined, body, undefined, response.headers), midStream);
      }
      if (name === undefined || !MESSAGE_EVENTS.has(name)) return undefined;
      let event: unknown;
      try {
        event = JSON.parse(message.data);
      } catch (err) {
        return toProviderErrorInfo(err, midStream);
      }
      for (const out of state.push(event)) emit(out);
      return undefined;
    };
    const idleMs = this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    await readToEnd({ response, transport: this.transport, idleMs, signal, emit, midStream }, read, {
      finished: () => state.finished,
      finish: () => state.finish(),
    });
  }

  /** The configured list of known models (the API's own list needs no round trip for this). */
  async listModels(): Promise<string[]> {
    return [...(this.options.models ?? [])];
  }

  private errorContext(beforeStream: boolean) {
    return { beforeStream, secrets: [this.options.apiKey], timeoutMs: this.options.timeoutMs };
  }
}

/** The SSE event names that carry a Messages stream event. */
const MESSAGE_EVENTS = new Set([
  "message_start",
  "message_delta",
  "message_stop",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
]);

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
