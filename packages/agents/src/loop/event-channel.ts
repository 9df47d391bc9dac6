/**
 * Merges the events of concurrent tasks into one ordered stream for the generator that drains it.
 * Unbounded: producers are the loop's own tasks, which stop when the turn stops.
 */
export class EventChannel<T> {
  private buffer: T[] = [];
  private head = 0;
  private wake: (() => void) | null = null;
  private closed = false;

  /**
   * @param offer passes a text chunk past the drain when the drain is parked with nothing queued (its
   * consumer has taken every earlier event and asked for the next): nothing can be overtaken then.
   */
  constructor(private readonly offer?: (event: T) => boolean) {}

  /** Queues one event, or hands a chunk straight on when nothing waits ahead of it. */
  push(event: T): void {
    if (this.wake !== null && this.head >= this.buffer.length && isChunk(event) && this.offer?.(event))
      return;
    this.buffer.push(event);
    this.notify();
  }

  /** Ends the stream once the queued events are drained. */
  close(): void {
    this.closed = true;
    this.notify();
  }

  /** Yields every event in push order until closed. */
  async *drain(): AsyncGenerator<T, void> {
    for (;;) {
      while (this.head < this.buffer.length) {
        const event = this.buffer[this.head] as T;
        this.head += 1;
        yield event;
      }
      this.buffer = [];
      this.head = 0;
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    if (wake) {
      this.wake = null;
      wake();
    }
  }
}

function isChunk(event: unknown): boolean {
  return (event as { type?: unknown }).type === "chunk";
}
