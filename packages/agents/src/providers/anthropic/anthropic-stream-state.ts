import { toolCallFromRawArgs } from "../parse-tool-args.js";
import type { FinishReason, ProviderEvent } from "../provider-event.js";
import { AnthropicStreamEvent, type AnthropicUsage } from "./anthropic-stream-event.js";
import { mapAnthropicUsage } from "./map-anthropic-usage.js";

type ToolBlock = { id: string; name: string; json: string; initialInput: unknown; sawDelta: boolean };

/**
 * Folds Messages stream events into provider events. Text and thinking go out as they arrive; tool
 * calls, usage and the finish are held back until the message has ended, so a stream that fails half-way
 * never hands a tool call to the loop.
 */
export class AnthropicStreamState {
  private readonly toolBlocks = new Map<number, ToolBlock>();
  // Usage fields are cumulative: later values replace earlier ones, so input counted at
  // message_start and repeated in message_delta (newer API revisions, some proxies) counts once.
  private usage: AnthropicUsage = {};
  private stopReason: string | undefined;
  private stopped = false;

  /** Reads one raw SDK event; unknown or malformed events are skipped. */
  push(raw: unknown): ProviderEvent[] {
    const parsed = AnthropicStreamEvent.safeParse(raw);
    if (!parsed.success) return [];
    const event = parsed.data;
    switch (event.type) {
      case "message_start":
        this.mergeUsage(event.message?.usage);
        return [];
      case "content_block_start":
        return this.startBlock(event.index, event.content_block);
      case "content_block_delta":
        return this.delta(event.index, event.delta);
      case "content_block_stop":
        return [];
      case "message_delta":
        if (event.delta?.stop_reason) this.stopReason = event.delta.stop_reason;
        this.mergeUsage(event.usage);
        return [];
      case "message_stop":
        this.stopped = true;
        return [];
    }
  }

  /**
   * True once the output is known to be complete: `message_stop`, or a `stop_reason` (only
   * `message_stop` follows it, and the SDK drops a last event that lacks its blank line).
   */
  get finished(): boolean {
    return this.stopped || this.stopReason !== undefined;
  }

  /** The held-back events of a stream that ended well: tool calls, usage (if reported), finish. */
  finish(): ProviderEvent[] {
    const events: ProviderEvent[] = [];
    const indexes = [...this.toolBlocks.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      const block = this.toolBlocks.get(index)!;
      // Without deltas (a proxy that sends the input whole) the start block's input is the input.
      const raw = block.sawDelta ? block.json : JSON.stringify(block.initialInput ?? {});
      events.push(toolCallFromRawArgs(block.id, block.name, raw));
    }
    const usage = mapAnthropicUsage(this.usage);
    if (Object.keys(usage).length > 0) events.push({ type: "usage", usage });
    events.push({ type: "finish", reason: this.mapStopReason(indexes.length > 0) });
    return events;
  }

  private startBlock(
    index: number,
    block: Extract<AnthropicStreamEvent, { type: "content_block_start" }>["content_block"],
  ): ProviderEvent[] {
    switch (block.type) {
      case "text":
        return block.text ? [{ type: "text-delta", text: block.text }] : [];
      case "thinking":
        return block.thinking ? [{ type: "thinking-delta", text: block.thinking }] : [];
      case "redacted_thinking":
        return [{ type: "thinking-delta", text: "", redactedData: block.data ?? "" }];
      case "tool_use":
        this.toolBlocks.set(index, {
          id: block.id ?? `toolu_missing_${index}`,
          name: block.name ?? "",
          json: "",
          initialInput: block.input,
          sawDelta: false,
        });
        return [];
      default:
        return [];
    }
  }

  private delta(
    index: number,
    delta: Extract<AnthropicStreamEvent, { type: "content_block_delta" }>["delta"],
  ): ProviderEvent[] {
    switch (delta.type) {
      case "text_delta":
        return delta.text ? [{ type: "text-delta", text: delta.text }] : [];
      case "thinking_delta":
        return delta.thinking ? [{ type: "thinking-delta", text: delta.thinking }] : [];
      case "signature_delta":
        return delta.signature ? [{ type: "thinking-delta", text: "", signature: delta.signature }] : [];
      case "input_json_delta": {
        const block = this.toolBlocks.get(index);
        if (block) {
          block.json += delta.partial_json ?? "";
          block.sawDelta = true;
        }
        return [];
      }
      default:
        return [];
    }
  }

  private mergeUsage(usage: AnthropicUsage | null | undefined): void {
    if (!usage) return;
    for (const [key, value] of Object.entries(usage)) {
      if (typeof value === "number") (this.usage as Record<string, number>)[key] = value;
    }
  }

  private mapStopReason(hasToolCalls: boolean): FinishReason {
    if (this.stopReason === "max_tokens" || this.stopReason === "model_context_window_exceeded")
      return "length";
    return hasToolCalls ? "tool_calls" : "stop";
  }
}
