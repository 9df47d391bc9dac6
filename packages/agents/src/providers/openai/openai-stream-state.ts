import type { FinishReason, ProviderErrorInfo, ProviderEvent, ProviderUsage } from "../provider-event.js";
import { OpenAIToolCallAssembler } from "./assemble-openai-tool-calls.js";
import { mapOpenAIUsage } from "./map-openai-usage.js";
import { OpenAIChunk } from "./openai-chunk.js";

/** What one chunk produced: deltas to yield now, or a failure that ends the stream. */
export type ChunkOutcome = { events: ProviderEvent[]; error?: ProviderErrorInfo };

/**
 * Folds Chat Completions chunks into provider events. Text and thinking go out as they arrive; tool
 * calls, usage and the finish are held back until the stream has ended well, so a stream that fails
 * half-way never hands a tool call to the loop.
 */
export class OpenAIStreamState {
  private readonly toolCalls = new OpenAIToolCallAssembler();
  private finishReason: string | undefined;
  private usage: ProviderUsage | undefined;

  /** Reads one raw chunk; anything unreadable is skipped. */
  push(raw: unknown): ChunkOutcome {
    const plain = plainTextDelta(raw);
    if (plain !== undefined) return { events: plain ? [{ type: "text-delta", text: plain }] : [] };
    const parsed = OpenAIChunk.safeParse(raw);
    if (!parsed.success) return { events: [] };
    const chunk = parsed.data;
    if (chunk.object === "error") {
      return {
        events: [],
        error: { message: chunk.message || "the server reported an error", beforeStream: false },
      };
    }
    // Usage may come on every chunk (vLLM), on the finish chunk, or alone at the end; it is
    // cumulative, so the last one wins and is reported once.
    if (chunk.usage) this.usage = mapOpenAIUsage(chunk.usage);
    const events: ProviderEvent[] = [];
    // We never ask for n > 1; choice 0 (or the only one, if a server drops `index`) is the answer.
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return { events };
    const delta = choice.delta;
    const thinking = delta?.reasoning_content || delta?.reasoning;
    if (thinking) events.push({ type: "thinking-delta", text: thinking });
    const text = delta?.content || delta?.refusal;
    if (text) events.push({ type: "text-delta", text });
    for (const call of delta?.tool_calls ?? []) this.toolCalls.add(call);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return { events };
  }

  /** True once a finish reason arrived: the model's output is complete. */
  get finished(): boolean {
    return this.finishReason !== undefined;
  }

  /** The held-back events of a stream that ended well: tool calls, usage (if reported), finish. */
  finish(makeId: () => string): ProviderEvent[] {
    const events: ProviderEvent[] = this.toolCalls.finish(makeId);
    if (this.usage && Object.keys(this.usage).length > 0) events.push({ type: "usage", usage: this.usage });
    events.push({ type: "finish", reason: this.mapFinishReason() });
    return events;
  }

  private mapFinishReason(): FinishReason {
    if (this.finishReason === "length") return "length";
    // Gemini and others end a tool-calling turn with "stop"; the calls, not the reason, decide.
    return this.toolCalls.size > 0 ? "tool_calls" : "stop";
  }
}

/**
 * The text of the chunk that makes up nearly every stream (one choice, a `content` delta, nothing
 * else that counts), read without the schema: what the schema would make of it, at a fraction of the
 * cost. Undefined for any other shape, which the schema then reads.
 */
function plainTextDelta(raw: unknown): string | undefined {
  const chunk = raw as { object?: unknown; usage?: unknown; choices?: unknown } | null;
  if (typeof chunk !== "object" || chunk === null || chunk.usage != null || chunk.object === "error") return;
  const choices = chunk.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return;
  const choice = choices[0] as { index?: unknown; delta?: unknown; finish_reason?: unknown } | null;
  if (typeof choice !== "object" || choice === null || choice.finish_reason != null) return;
  if (choice.index !== 0 && choice.index !== undefined) return;
  const delta = choice.delta as Record<string, unknown> | null;
  if (typeof delta !== "object" || delta === null || typeof delta.content !== "string") return;
  if (delta.tool_calls != null || delta.reasoning_content != null || delta.reasoning != null) return;
  if (delta.refusal != null && delta.content === "") return;
  return delta.content;
}
