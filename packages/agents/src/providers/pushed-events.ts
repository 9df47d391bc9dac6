import type { ProviderEvent } from "./provider-event.js";

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
  let wake: (() => void) | undefined;
  let finished = false;
  let failure: { error: unknown } | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  run((event) => {
    queue.push(event);
    notify();
  }).then(
    () => {
      finished = true;
      notify();
    },
    (error: unknown) => {
      failure = { error };
      finished = true;
      notify();
    },
  );
  for (;;) {
    while (queue.length > 0) yield queue.shift() as ProviderEvent;
    if (finished) {
      if (failure) throw failure.error;
      return;
    }
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
}
