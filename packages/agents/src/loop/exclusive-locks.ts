import { ABORTED, abortable } from "./abortable.js";

/** Releases a held lock; safe to call more than once. */
export type ReleaseLock = () => void;

/**
 * Named FIFO locks shared by a whole turn tree: a tool's `requiresExclusiveLock` serialises every
 * holder of that name, siblings and subtasks alike.
 */
export class ExclusiveLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Waits for the lock; null when the signal fired first (the queue still moves on). */
  async acquire(name: string, signal: AbortSignal): Promise<ReleaseLock | null> {
    const previous = this.tails.get(name) ?? Promise.resolve();
    let open!: () => void;
    const mine = new Promise<void>((resolve) => {
      open = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(name, tail);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      open();
      if (this.tails.get(name) === tail) this.tails.delete(name);
    };
    const got = await abortable(previous, signal);
    if (got === ABORTED) {
      // Our place in the queue must still pass the lock on, or every later holder would wait forever.
      void previous.then(release);
      return null;
    }
    return release;
  }

  /** Whether anyone holds or waits for the lock. */
  isBusy(name: string): boolean {
    return this.tails.has(name);
  }
}
