/**
 * The turn tree's MAX_PARALLEL_PER_TURN: one counting semaphore per root turn, served first come
 * first served. A leaf tool call holds a permit while it runs; a container (a subtask's call, a plan
 * step, a tool whose nested subtasks run) holds one while its own level works (its model calls) and
 * gives it back while its children run, so no holder ever waits on a child that needs a permit: no
 * deadlock at any depth, whatever the limit.
 */
export class ParallelPermits {
  private free: number;
  private readonly waiting: { grant: () => void }[] = [];
  private readonly held = new Map<string, Permit>();

  constructor(readonly limit: number) {
    this.free = Math.max(1, limit);
  }

  /** Waits for a permit; false when the signal fired first (nothing is held then). */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const entry = {
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve(true);
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(entry);
        if (at !== -1) this.waiting.splice(at, 1);
        resolve(false);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Gives one permit back: to the longest waiter, or to the pool. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.free += 1;
  }

  /** The permit of one call of the tree (a container's, found again by its children's level). */
  of(callId: string): Permit {
    let permit = this.held.get(callId);
    if (!permit) {
      permit = new Permit(this);
      this.held.set(callId, permit);
    }
    return permit;
  }

  /** The call ended: its permit goes back and is forgotten. */
  end(callId: string): void {
    this.held.get(callId)?.give();
    this.held.delete(callId);
  }

  /** The call's permit when one exists (its level gives it back while its children run). */
  find(callId: string | null): Permit | undefined {
    return callId === null ? undefined : this.held.get(callId);
  }
}

/** One call's hold on a permit: taking and giving are idempotent. */
export class Permit {
  private holding = false;
  /** How many of the call's children run right now: the permit is given back while any does. */
  private lent = 0;
  /** Whether the permit was held when the first of them started, so it is taken again after the last. */
  private restore = false;

  constructor(private readonly pool: ParallelPermits) {}

  /** Takes the permit unless already held; false when the signal fired first. */
  async take(signal: AbortSignal): Promise<boolean> {
    if (this.holding) return true;
    this.holding = await this.pool.acquire(signal);
    return this.holding;
  }

  /** Gives the permit back, if held. */
  give(): void {
    if (!this.holding) return;
    this.holding = false;
    this.pool.release();
  }

  /** Runs `work` (children of this call) with the permit given back, taking it again after. */
  async lend<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> {
    this.lent += 1;
    if (this.lent === 1) this.restore = this.holding;
    this.give();
    try {
      return await work();
    } finally {
      this.lent -= 1;
      if (this.lent === 0 && this.restore) await this.take(signal);
    }
  }
}
