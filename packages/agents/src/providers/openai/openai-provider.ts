import { randomUUID } from "node:crypto";
import OpenAI from "openai";
import type { FetchLike } from "../bounded-retry-fetch.js";
import { providerFetch } from "../idle-timeout-fetch.js";
import type { Provider } from "../provider.js";
import { streamFailure, toProviderErrorInfo } from "../provider-error.js";
import type { ProviderErrorInfo, ProviderEvent } from "../provider-event.js";
import type { ProviderRequest } from "../provider-request.js";
import { retryStalledStream } from "../retry-stalled-stream.js";
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
  private readonly client: OpenAI;
  private readonly secrets: string[];

  constructor(private readonly options: OpenAIProviderOptions) {
    this.id = options.id;
    this.secrets = options.apiKey ? [options.apiKey] : [];
    this.client = new OpenAI({
      apiKey: options.apiKey || "not-needed",
      baseURL: options.baseURL ?? null,
      organization: options.organization ?? null,
      project: null,
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
    const body = mapOpenAIRequest(request, this.options.maxTokensField);
    let chunks: AsyncIterable<unknown>;
    let requestId: string | undefined;
    try {
      const started = await this.client.chat.completions.create(body, { signal }).withResponse();
      chunks = started.data;
      requestId = started.request_id ?? undefined;
    } catch (err) {
      if (signal.aborted) return;
      yield* this.fail(toProviderErrorInfo(err, this.errorContext(true)));
      return;
    }
    const state = new OpenAIStreamState();
    try {
      for await (const chunk of chunks) {
        const outcome = state.push(chunk);
        yield* outcome.events;
        if (outcome.error) {
          // Leaving the loop aborts the HTTP request; the tool calls seen so far are dropped.
          yield* this.fail({ ...outcome.error, ...(requestId ? { requestId } : {}) });
          return;
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      yield* this.fail(toProviderErrorInfo(err, { ...this.errorContext(false), requestId }));
      return;
    }
    if (signal.aborted) return;
    // The SDK ends quietly when the connection closes early; only a finish reason proves the output complete.
    if (!state.finished) {
      yield* this.fail(
        streamFailure("the stream ended before the model finished (connection closed early)", requestId),
      );
      return;
    }
    yield* state.finish(() => `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`);
  }

  /** The configured model list, or what the server's `/models` answers. */
  async listModels(signal?: AbortSignal): Promise<string[]> {
    if (this.options.staticModels) return [...this.options.staticModels];
    const page = await this.client.models.list({ signal, maxRetries: 0 });
    return page.data.map((m) => m.id).filter((id) => typeof id === "string" && id !== "");
  }

  private *fail(error: ProviderErrorInfo): Generator<ProviderEvent> {
    yield { type: "error", error };
    yield { type: "finish", reason: "error" };
  }

  private errorContext(beforeStream: boolean) {
    return { beforeStream, secrets: this.secrets, timeoutMs: this.options.timeoutMs };
  }
}
