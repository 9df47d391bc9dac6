/**
 * An append-only list that any number of readers iterate from its start, each at its own pace,
 * until it is ended: `turn.frames` can be read twice, or late, and still sees every frame once.
 */
export class FrameLog<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private ended = false;
  private wake: (() => void)[] = [];

  /** Adds an item and wakes the readers. */
  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    this.notify();
  }

  /** No more items: readers finish once they reach the end. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /** Every item so far. */
  get all(): readonly T[] {
    return this.items;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let i = 0;
    for (;;) {
      while (i < this.items.length) yield this.items[i++] as T;
      if (this.ended) return;
      await new Promise<void>((resolve) => this.wake.push(resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = [];
    for (const resolve of wake) resolve();
  }
}
