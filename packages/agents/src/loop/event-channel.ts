/**
 * Merges the events of concurrent tasks into one ordered stream for the generator that drains it.
 * Unbounded: producers are the loop's own tasks, which stop when the turn stops.
 */
export class EventChannel<T> {
  private buffer: T[] = [];
  private head = 0;
  private wake: (() => void) | null = null;
  private closed = false;

  /** Queues one event. */
  push(event: T): void {
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
