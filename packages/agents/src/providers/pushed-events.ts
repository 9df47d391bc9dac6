import type { ProviderEvent } from "./provider-event.js";
import { SettleWait } from "./settle-wait.js";

/** Where a pushing provider call delivers its events, synchronously, in order. */
export type EmitProviderEvent = (event: ProviderEvent) => void;

/**
 * The pull form of a pushed provider call, for consumers that iterate (`Provider.stream`): events
 * queue until read. The call runs to its end whether or not it is read; its signal stops it.
 */
export async function* pushedEvents(
  run: (emit: EmitProviderEvent) => Promise<void>,
): AsyncGenerator<ProviderEvent> {
  const queue: ProviderEvent[] = [];
  const waiting = new SettleWait();
  waiting.watch(
    run((event) => {
      queue.push(event);
      waiting.notify();
    }),
  );
  for (;;) {
    while (queue.length > 0) yield queue.shift() as ProviderEvent;
    if (waiting.finished) {
      if (waiting.failure) throw waiting.failure.error;
      return;
    }
    await waiting.wait();
  }
}
