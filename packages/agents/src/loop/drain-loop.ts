import type { LoopEvent } from "../turn/loop-event.js";
import type { LoopResult } from "../turn/loop-result.js";

/** Runs a loop generator to its end, handing each event to `onEvent`; returns the result. */
export async function drainLoop(
  loop: AsyncGenerator<LoopEvent, LoopResult>,
  onEvent?: (event: LoopEvent) => void | Promise<void>,
): Promise<LoopResult> {
  for (;;) {
    const next = await loop.next();
    if (next.done) return next.value;
    if (onEvent) await onEvent(next.value);
  }
}
