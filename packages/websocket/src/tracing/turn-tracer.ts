import type { Tracer } from "@opentelemetry/api";
import type { TurnObserverFactory } from "../turns/turn-observer.js";
import { TurnTrace } from "./turn-trace.js";

/**
 * Traces every turn segment with `tracer` (set it as the chat services' `observeTurn`). A segment
 * the sampler drops gets no observer at all, so it costs nothing per event.
 */
export function createTurnTracer(tracer: Tracer, clock?: () => number): TurnObserverFactory {
  return (turn) => {
    try {
      const traced = new TurnTrace(tracer, turn, clock);
      return traced.recording ? traced : undefined;
    } catch {
      // Traces are for operators: a broken tracer must never stop a turn from starting.
      return undefined;
    }
  };
}
