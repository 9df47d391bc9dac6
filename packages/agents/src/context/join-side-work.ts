import type { LoopEvent } from "../loop/loop-event.js";
import type { LoopResult } from "../loop/loop-result.js";
import type { LlmCallRecord } from "../usage/llm-call-record.js";
import { UsageAccumulator } from "../usage/usage-accumulator.js";

/** What work beside the turn produced: its provider calls (for the turn's usage) and frames for the turn. */
export type SideResult = { calls: LlmCallRecord[]; events: LoopEvent[] };

/**
 * Runs `start` beside a root loop and joins it to the turn: it starts once the loop has begun its
 * first model call (the answer goes first), its frames go out at the next event boundary after it
 * settles, and the loop's end waits for it so its calls count in the turn's usage. `start` must not
 * reject (a side failure is its own business: log it and resolve).
 */
export async function* joinSideWork(
  loop: AsyncGenerator<LoopEvent, LoopResult>,
  start: () => Promise<SideResult>,
): AsyncGenerator<LoopEvent, LoopResult> {
  let side: Promise<SideResult> | undefined;
  let settled: SideResult | undefined;
  let drained = false;
  const begin = () => {
    side ??= start().then((r) => {
      settled = r;
      return r;
    });
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
        begin();
        const result = await (side as Promise<SideResult>);
        if (!drained) yield* result.events;
        return withCalls(next.value, result.calls);
      }
      const event = next.value;
      if (event.type === "agent_state" && event.state === "thinking") thinking = true;
      if (settled && !drained) {
        drained = true;
        yield* settled.events;
      }
      yield event;
    }
  } finally {
    await loop.return?.(undefined as never);
    // A loop that threw still lets its side work finish before the turn ends (it writes rows).
    await side;
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
