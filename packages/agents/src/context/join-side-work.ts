import type { LoopEvent } from "../turn/loop-event.js";
import type { LoopResult } from "../turn/loop-result.js";
import type { LlmCallRecord } from "../usage/llm-call-record.js";
import { UsageAccumulator } from "../usage/usage-accumulator.js";

/**
 * How work beside a turn hands the turn what it made, while the turn still takes it. Each method
 * answers false once the loop has ended: the turn is complete without it, and the side work records
 * the call or delivers the frame itself (after the turn).
 */
export type SideChannel = {
  /** Counts a provider call in the turn's usage. */
  call(record: LlmCallRecord): boolean;
  /** Sends a frame with the turn, at its next event boundary (or before its end). */
  event(event: LoopEvent): boolean;
};

/** A side channel and what was handed over through it, opened before the loop it joins. */
export type SideBuffer = {
  channel: SideChannel;
  calls: LlmCallRecord[];
  pending: LoopEvent[];
  /** Set once the loop has ended: the channel declines from then on. */
  ended: boolean;
};

/** Opens a side channel whose calls and frames a later `joinSideWork` hands to the turn. */
export function openSideChannel(): SideBuffer {
  const buffer: SideBuffer = {
    channel: {
      call: (record) => !buffer.ended && buffer.calls.push(record) > 0,
      event: (event) => !buffer.ended && buffer.pending.push(event) > 0,
    },
    calls: [],
    pending: [],
    ended: false,
  };
  return buffer;
}

/**
 * Runs `start` beside a root loop: it starts once the loop has begun its first model call (the answer
 * goes first), and whatever it hands over through its channel before the loop ends joins the turn
 * (frames at the next event boundary, calls in the result's usage). The loop's end never waits for
 * it: the turn ends when its answer is complete, and the side work goes on by itself. `start` must
 * not reject (a side failure is its own business: log it and resolve). `buffer`: a channel work
 * before the loop already used (a summarizer the turn waited for); its frames go out first.
 */
export async function* joinSideWork(
  loop: AsyncGenerator<LoopEvent, LoopResult>,
  start: ((side: SideChannel) => Promise<void>) | undefined,
  buffer: SideBuffer = openSideChannel(),
): AsyncGenerator<LoopEvent, LoopResult> {
  let begun = start === undefined;
  const { calls, pending, channel } = buffer;
  const begin = () => {
    if (begun) return;
    begun = true;
    start?.(channel).catch(() => {});
  };
  let thinking = false;
  let scheduled = false;
  try {
    for (;;) {
      // The model call is issued on the resume after the loop says it is thinking, a few microtasks
      // in: starting after them (setImmediate) puts the answer's request on its way first.
      if (thinking && !scheduled) {
        scheduled = true;
        setImmediate(begin);
      }
      const next = await loop.next();
      if (next.done) {
        // Side work already scheduled still starts, and everything it makes comes after the turn.
        buffer.ended = true;
        yield* pending.splice(0);
        return withCalls(next.value, calls);
      }
      const event = next.value;
      if (event.type === "agent_state" && event.state === "thinking") thinking = true;
      if (pending.length > 0) yield* pending.splice(0);
      yield event;
    }
  } finally {
    buffer.ended = true;
    await loop.return?.(undefined as never);
  }
}

/** The loop's result with the side calls added to its usage. */
function withCalls(result: LoopResult, calls: readonly LlmCallRecord[]): LoopResult {
  if (calls.length === 0) return result;
  const usage = new UsageAccumulator();
  usage.merge(result.usage);
  for (const call of calls) usage.addLlmCall(call);
  return { ...result, usage: usage.snapshot() };
}
