import { randomUUID } from "node:crypto";
import OpenAI, { APIError } from "openai";
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
import { type MaxTokensField, mapOpenAIRequest } from "./map-openai-request.js";
import { OpenAIStreamState } from "./openai-stream-state.js";

/** Settings of one Chat Completions endpoint: OpenAI itself or a compatible server. */
export type OpenAIProviderOptions = {
  /** Provider id clients use ("openai", "ollama", …). */
  id: string;
  /** Compatible servers often need none; the SDK still wants a value. */
  apiKey?: string;
  baseURL?: string;
  organization?: string;
  /** SDK retries of failures before the stream starts (408/409/429/5xx, connection errors). */
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
  /** OpenAI's reasoning models need `max_completion_tokens`; many compatible servers know only `max_tokens`. */
  maxTokensField?: MaxTokensField;
  /** When set, `listModels` answers this instead of asking the server's `/models`. */
  staticModels?: readonly string[];
  fetch?: FetchLike;
};

/**
 * Provider over the Chat Completions API with the `openai` SDK. Every stream ends with exactly one
 * `finish` (after an `error`, its reason is "error"), except when `signal` aborts: then the HTTP
 * request is aborted and the stream ends at once with no further event.
 */
export class OpenAIProvider implements Provider {
  readonly id: string;
  protected readonly client: OpenAI;
  private readonly secrets: string[];
  /** Absent when a fetch was given: its bodies are read as web streams. */
  protected readonly transport: HttpTransport | undefined;

  constructor(protected readonly options: OpenAIProviderOptions) {
    this.id = options.id;
    this.secrets = options.apiKey ? [options.apiKey] : [];
    const { transport, fetch } = providerTransport(options);
    this.transport = transport;
    this.client = new OpenAI({
      apiKey: options.apiKey || "not-needed",
      baseURL: options.baseURL ?? null,
      organization: options.organization ?? null,
      project: null,
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

  /** One call to the API, its events emitted as they are read (the Responses provider has its own). */
  protected async attempt(
    request: ProviderRequest,
    signal: AbortSignal,
    emit: EmitProviderEvent,
  ): Promise<void> {
    if (signal.aborted) return;
    const body = mapOpenAIRequest(request, this.options.maxTokensField);
    let response: Response;
    try {
      response = await this.client.chat.completions.create(body, { signal }).asResponse();
    } catch (err) {
      if (!signal.aborted) emitFailure(emit, toProviderErrorInfo(err, this.errorContext(true)));
      return;
    }
    const requestId = response.headers.get("x-request-id") ?? undefined;
    const midStream = { ...this.errorContext(false), requestId };
    const state = new OpenAIStreamState();
    let done = false;
    // What the SDK's stream does with each message, without its iterators: [DONE] ends the answer, an
    // `error` field is an APIError, anything else is a chunk.
    const read: ReadMessage = (message) => {
      if (done) return undefined;
      if (message.data.startsWith("[DONE]")) {
        done = true;
        return undefined;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(message.data);
      } catch (err) {
        return toProviderErrorInfo(err, midStream);
      }
      const inner = (chunk as { error?: unknown } | null)?.error;
      if (inner)
        return toProviderErrorInfo(new APIError(undefined, inner, undefined, response.headers), midStream);
      const outcome = state.push(chunk);
      for (const event of outcome.events) emit(event);
      // Stopping the read aborts the HTTP request; the tool calls seen so far are dropped.
      return outcome.error && { ...outcome.error, ...(requestId ? { requestId } : {}) };
    };
    const idleMs = this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    await readToEnd({ response, transport: this.transport, idleMs, signal, emit, midStream }, read, {
      finished: () => state.finished,
      finish: () => state.finish(() => `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`),
    });
  }

  /** The configured model list, or what the server's `/models` answers. */
  async listModels(signal?: AbortSignal): Promise<string[]> {
    if (this.options.staticModels) return [...this.options.staticModels];
    const page = await this.client.models.list({ signal, maxRetries: 0 });
    return page.data.map((m) => m.id).filter((id) => typeof id === "string" && id !== "");
  }

  protected errorContext(beforeStream: boolean) {
    return { beforeStream, secrets: this.secrets, timeoutMs: this.options.timeoutMs };
  }
}
