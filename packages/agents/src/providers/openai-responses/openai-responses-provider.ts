import { randomUUID } from "node:crypto";
import { APIError } from "openai";
import { DEFAULT_IDLE_TIMEOUT_MS } from "../idle-timeout-fetch.js";
import { OpenAIProvider, type OpenAIProviderOptions } from "../openai/openai-provider.js";
import { toProviderErrorInfo } from "../provider-error.js";
import type { ProviderRequest } from "../provider-request.js";
import type { EmitProviderEvent } from "../pushed-events.js";
import { emitFailure, type ReadMessage, readToEnd } from "../stream-call.js";
import { mapResponsesRequest } from "./map-responses-request.js";
import { ResponsesStreamState } from "./responses-stream-state.js";

/** Settings of one Responses API endpoint: OpenAI itself or a compatible server that has `/responses`. */
export type OpenAIResponsesProviderOptions = Omit<OpenAIProviderOptions, "maxTokensField">;

/**
 * Provider over OpenAI's Responses API (`POST /responses`) with the `openai` SDK, stateless
 * (`store: false`): each reasoning item comes back encrypted on a thinking block and is sent again in
 * the next call. The client, transport, retries, idle timeout, stall retry and model list are
 * OpenAIProvider's; only the call differs. Every stream ends with exactly one `finish` (after an
 * `error`, its reason is "error"), except when `signal` aborts.
 */
export class OpenAIResponsesProvider extends OpenAIProvider {
  protected override async attempt(
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
}
