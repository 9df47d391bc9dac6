import type { ObservedTurn, TurnObserver, TurnObserverFactory } from "./turn-observer.js";

/** One observer that forwards every call to each given observer in order; undefined when none is given. */
export function composeObservers(...observers: (TurnObserver | undefined)[]): TurnObserver | undefined {
  const all = observers.filter((o): o is TurnObserver => o !== undefined);
  if (all.length <= 1) return all[0];
  return {
    llmCall: (record) => {
      for (const o of all) o.llmCall(record);
    },
    event: (event) => {
      for (const o of all) o.event(event);
    },
    turnSuspended: () => {
      for (const o of all) o.turnSuspended?.();
    },
    turnHandedOver: () => {
      for (const o of all) o.turnHandedOver?.();
    },
    turnEnded: (status) => {
      for (const o of all) o.turnEnded(status);
    },
    toolCrashed: (tool) => {
      for (const o of all) o.toolCrashed?.(tool);
    },
  };
}

/**
 * The observer of one turn segment: the process-wide one (metrics) plus the segment's own (traces).
 * Without a factory it is the process-wide observer itself: nothing is made per turn.
 */
export function turnObserverOf(
  services: { observer?: TurnObserver | undefined; observeTurn?: TurnObserverFactory | undefined },
  turn: ObservedTurn,
): TurnObserver | undefined {
  if (!services.observeTurn) return services.observer;
  return composeObservers(services.observer, services.observeTurn(turn));
}
