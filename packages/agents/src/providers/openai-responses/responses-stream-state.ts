import { toolCallFromRawArgs } from "../parse-tool-args.js";
import type { FinishReason, ProviderEvent, ProviderUsage } from "../provider-event.js";
import { mapResponsesUsage } from "./map-responses-usage.js";
import { ResponsesEvent, type ResponsesOutputItem } from "./responses-event.js";

/** What one event produced: deltas to emit now, or the API's error (raw) that ends the stream. */
export type ResponsesOutcome = { events: ProviderEvent[]; failure?: { error: object } };

type PendingCall = { itemId: string | undefined; callId: string | undefined; name: string; args: string };

/**
 * Folds Responses stream events into provider events. Text and reasoning summaries go out as they
 * arrive; each reasoning item, when done, closes its thinking block with the item (id, encrypted
 * content, summary) so the next call can send it back. Function calls, usage and the finish are held
 * back until the response completed, so a stream that fails half-way never hands a call to the loop.
 */
export class ResponsesStreamState {
  private readonly calls: PendingCall[] = [];
  private usage: ProviderUsage | undefined;
  private endReason: FinishReason | undefined;
  /** The summary part being streamed (item id and index), to put a blank line between parts. */
  private summaryPart: { itemId: string | undefined; index: number } | undefined;

  /** Reads one raw event; anything unreadable or of a kind not used here is skipped. */
  push(raw: unknown): ResponsesOutcome {
    // Nearly every event of a stream is a text delta: read without the schema, what it would make of it.
    const fast = raw as { type?: unknown; delta?: unknown } | null;
    if (fast?.type === "response.output_text.delta" && typeof fast.delta === "string")
      return { events: fast.delta ? [{ type: "text-delta", text: fast.delta }] : [] };
    const parsed = ResponsesEvent.safeParse(raw);
    if (!parsed.success) return { events: [] };
    const event = parsed.data;
    switch (event.type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
        return { events: event.delta ? [{ type: "text-delta", text: event.delta }] : [] };
      case "response.reasoning_summary_text.delta":
        return { events: this.summaryDelta(event) };
      case "response.output_item.added":
        if (event.item?.type === "function_call") this.callFor(event.item.id, event.item);
        return { events: [] };
      case "response.function_call_arguments.delta":
        this.callFor(event.item_id).args += event.delta ?? "";
        return { events: [] };
      case "response.function_call_arguments.done":
        if (typeof event.arguments === "string") this.callFor(event.item_id).args = event.arguments;
        return { events: [] };
      case "response.output_item.done":
        return { events: this.itemDone(event.item) };
      case "response.completed":
      case "response.incomplete":
        if (event.response?.usage) this.usage = mapResponsesUsage(event.response.usage);
        this.endReason =
          event.type === "response.incomplete" &&
          event.response?.incomplete_details?.reason === "max_output_tokens"
            ? "length"
            : this.calls.length > 0
              ? "tool_calls"
              : "stop";
        return { events: [] };
      case "response.failed":
        return {
          events: [],
          failure: { error: event.response?.error ?? { message: "the response failed" } },
        };
      case "error":
        return {
          events: [],
          failure: { error: event.error ?? { code: event.code, message: event.message } },
        };
      default:
        return { events: [] };
    }
  }

  /** True once the response completed (or ended incomplete): the model's output is over. */
  get finished(): boolean {
    return this.endReason !== undefined;
  }

  /** The held-back events of a response that ended well: function calls, usage (if reported), finish. */
  finish(makeId: () => string): ProviderEvent[] {
    const used = new Set<string>();
    const events: ProviderEvent[] = this.calls.map((call) => {
      let id = call.callId;
      if (!id || used.has(id)) id = makeId();
      used.add(id);
      return toolCallFromRawArgs(id, call.name, call.args);
    });
    if (this.usage && Object.keys(this.usage).length > 0) events.push({ type: "usage", usage: this.usage });
    events.push({ type: "finish", reason: this.endReason ?? "stop" });
    return events;
  }

  private summaryDelta(event: ResponsesEvent): ProviderEvent[] {
    if (!event.delta) return [];
    const index = event.summary_index ?? 0;
    const part = this.summaryPart;
    // A new part of the same item's summary starts a paragraph; a new item starts a new block.
    const blank = part !== undefined && part.itemId === event.item_id && part.index !== index;
    this.summaryPart = { itemId: event.item_id ?? undefined, index };
    return [{ type: "thinking-delta", text: blank ? `\n\n${event.delta}` : event.delta }];
  }

  private itemDone(item: ResponsesOutputItem | undefined | null): ProviderEvent[] {
    if (item?.type === "function_call") {
      const call = this.callFor(item.id, item);
      if (typeof item.arguments === "string") call.args = item.arguments;
      return [];
    }
    if (item?.type !== "reasoning" || !item.id) return [];
    if (this.summaryPart?.itemId === item.id) this.summaryPart = undefined;
    const reasoning = {
      id: item.id,
      summary: (item.summary ?? []).flatMap((s) => (typeof s.text === "string" ? [s.text] : [])),
      ...(item.encrypted_content ? { encryptedContent: item.encrypted_content } : {}),
    };
    return [{ type: "thinking-delta", text: "", reasoning }];
  }

  /** The pending call of an item id, made (and filled from `item`) when first seen. */
  private callFor(itemId: string | null | undefined, item?: ResponsesOutputItem): PendingCall {
    let call = itemId ? this.calls.find((c) => c.itemId === itemId) : this.calls.at(-1);
    if (!call) {
      call = { itemId: itemId ?? undefined, callId: undefined, name: "", args: "" };
      this.calls.push(call);
    }
    if (item?.call_id && !call.callId) call.callId = item.call_id;
    if (item?.name && !call.name) call.name = item.name;
    return call;
  }
}
