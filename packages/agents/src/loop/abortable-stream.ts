import { ABORTED, forgetAbort, watchAbort } from "./abortable.js";

/**
 * An async iterator raced against one abort signal, for a stream read chunk by chunk: one abort
 * listener for the whole stream instead of one per read (adding and removing an AbortSignal
 * listener per chunk was a visible share of a chunk's cost). A stream that ignores the signal still
 * cannot hold the loop: the pending read resolves to ABORTED when the signal fires.
 */
export class AbortableStream<T> {
  private wake: ((value: typeof ABORTED) => void) | undefined;
  private readonly onAbort = () => this.wake?.(ABORTED);

  constructor(
    private readonly iterator: AsyncIterator<T>,
    private readonly signal: AbortSignal,
  ) {
    watchAbort(signal, this.onAbort);
  }

  /** The next item, or ABORTED once the signal fired (the iterator's own read is left to settle). */
  next(): Promise<IteratorResult<T> | typeof ABORTED> {
    // The read starts even when the signal already fired, as a raced read would: a call the budget
    // counted reaches the provider, which sees the aborted signal itself.
    const read = this.iterator.next();
    if (this.signal.aborted) {
      read.catch(() => {});
      return Promise.resolve(ABORTED);
    }
    return new Promise((resolve, reject) => {
      this.wake = resolve;
      read.then(resolve, (error: unknown) => {
        if (this.signal.aborted) resolve(ABORTED);
        else reject(error);
      });
    });
  }

  /** Removes the abort listener; call once the stream is done with. */
  dispose(): void {
    this.wake = undefined;
    forgetAbort(this.signal, this.onAbort);
  }
}
