/** An unbounded single-consumer queue: producers push, one consumer awaits `next()`. */
export class AsyncQueue<T> {
  readonly #items: T[] = [];
  #waiter: ((item: T) => void) | undefined;

  push(item: T): void {
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter(item);
    } else {
      this.#items.push(item);
    }
  }

  /** The next item, waiting for one if the queue is empty. */
  next(): Promise<T> {
    if (this.#items.length > 0) return Promise.resolve(this.#items.shift() as T);
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }
}
