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
import { mapResponsesRequest } from "./map-responses-request.js";
import { ResponsesStreamState } from "./responses-stream-state.js";

/** Settings of one Responses API endpoint: OpenAI itself or a compatible server that has `/responses`. */
export type OpenAIResponsesProviderOptions = {
  /** Provider id clients use ("openai", or a compatible endpoint's name). */
  id: string;
  apiKey?: string;
  baseURL?: string;
  organization?: string;
  /** SDK retries of failures before the stream starts (408/409/429/5xx, connection errors). */
  maxRetries: number;
  /** Time to response headers per attempt, in ms. */
  timeoutMs: number;
  /** Longest silence once the response has started, in ms (default 60000); see OpenAIProvider. */
  idleTimeoutMs?: number;
  /** A retry-after longer than this is not waited for; the error is reported instead. */
  maxRetryDelayMs: number;
  /** When set, `listModels` answers this instead of asking the server's `/models`. */
  staticModels?: readonly string[];
  fetch?: FetchLike;
};

/**
 * Provider over OpenAI's Responses API (`POST /responses`) with the `openai` SDK, stateless
 * (`store: false`): each reasoning item comes back encrypted on a thinking block and is sent again in
 * the next call. Errors, retries, idle timeout and stall retry as in OpenAIProvider: every stream ends
 * with exactly one `finish` (after an `error`, its reason is "error"), except when `signal` aborts.
 */
export class OpenAIResponsesProvider implements Provider {
  readonly id: string;
  private readonly client: OpenAI;
  private readonly secrets: string[];
  /** Absent when a fetch was given: its bodies are read as web streams. */
  private readonly transport: HttpTransport | undefined;

  constructor(private readonly options: OpenAIResponsesProviderOptions) {
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

  private async attempt(
    request: ProviderRequest,
    signal: AbortSignal,
    emit: EmitProviderEvent,
  ): Promise<void> {
    if (signal.aborted) return;
    const body = mapResponsesRequest(request);
    let response: Response;
    try {
      response = await this.client.responses.create(body, { signal }).asResponse();
    } catch (err) {
      if (!signal.aborted) emitFailure(emit, toProviderErrorInfo(err, this.errorContext(true)));
      return;
    }
    const requestId = response.headers.get("x-request-id") ?? undefined;
    const midStream = { ...this.errorContext(false), requestId };
    const state = new ResponsesStreamState();
    // Events after the response ended (a trailing [DONE] some proxies add) are not read.
    const read: ReadMessage = (message) => {
      if (state.finished || message.data.startsWith("[DONE]")) return undefined;
      let event: unknown;
      try {
        event = JSON.parse(message.data);
      } catch (err) {
        return toProviderErrorInfo(err, midStream);
      }
      const outcome = state.push(event);
      for (const e of outcome.events) emit(e);
      if (!outcome.failure) return undefined;
      // The API's error object, read the way the SDK reads an error body (type, code, message).
      const error = new APIError(undefined, outcome.failure.error, undefined, response.headers);
      return toProviderErrorInfo(error, midStream);
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

  private errorContext(beforeStream: boolean) {
    return { beforeStream, secrets: this.secrets, timeoutMs: this.options.timeoutMs };
  }
}
