import { performance } from "node:perf_hooks";
import { AdmissionLimits, type AdmissionLimitsInput } from "./admission-limits.js";

/** Why a turn was refused a place in the queue. */
export type AdmissionRejection = "queue_full" | "user_queue_full";

/** Watches admissions for operations (metrics); every method must be cheap and must not throw. */
export interface AdmissionObserver {
  /** A new turn was admitted after waiting this long (0 on the fast path). */
  admissionWaited(seconds: number): void;
  admissionRejected(reason: AdmissionRejection): void;
}

export type AdmissionQueueOptions = {
  /** Clock in ms for wait times; defaults to `performance.now`. */
  now?: () => number;
  observer?: AdmissionObserver;
};

type TicketState = "queued" | "admitted" | "left";

/**
 * One turn's place: admitted (it counts as live until released) or queued (it waits its turn).
 * `release` is idempotent: a queued ticket leaves the queue, an admitted one frees its slot.
 */
export class AdmissionTicket {
  private settle: ((admitted: boolean) => void) | undefined;

  constructor(
    private readonly queue: AdmissionQueue,
    readonly userId: string,
    /** When the ticket was taken, on the queue's clock. */
    readonly since: number,
    /** Set by the queue only. */
    public state: TicketState,
  ) {}

  get admitted(): boolean {
    return this.state === "admitted";
  }

  /**
   * Resolves true once admitted, false when the signal fires first (the ticket then leaves the
   * queue) or the ticket was released. Call it only on a ticket that is not yet admitted.
   */
  wait(signal: AbortSignal): Promise<boolean> {
    if (this.state !== "queued") return Promise.resolve(this.state === "admitted");
    if (signal.aborted) {
      this.release();
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      const onAbort = () => this.release();
      signal.addEventListener("abort", onAbort, { once: true });
      this.settle = (admitted) => {
        signal.removeEventListener("abort", onAbort);
        this.settle = undefined;
        resolve(admitted);
      };
    });
  }

  /** Leaves the queue, or gives the live slot back (the turn ended or waits on the user). */
  release(): void {
    this.queue.release(this);
  }

  /** The queue's answer to `wait`. */
  settled(admitted: boolean): void {
    this.settle?.(admitted);
  }
}

/**
 * Admission of new turns in one process, in front of their expensive work. A turn is admitted while
 * fewer than `maxLiveTurns` are live, the event loop's last measured lag is at most `maxLagMs` and its
 * utilization at most `maxUtilization`, and this tick's `batch` is not used up; otherwise it waits in its user's FIFO, and the users' queues
 * are served round-robin (a user with many waiting turns delays another user's turn by one at most).
 * The queue is bounded in total and per user; past either bound `reserve` refuses.
 *
 * Passive: `tick(lagMs, utilization)` (every ADMISSION_TICK_MS, see watchEventLoopLag) reports the
 * load, renews the batch and admits; a released slot admits the next waiting turn at once. With room the fast path is
 * synchronous: no promise, no timer.
 */
export class AdmissionQueue {
  readonly limits: AdmissionLimits;
  observer: AdmissionObserver | undefined;
  /** Each user's waiting tickets in order; the map's order is the round-robin order. */
  private readonly waiting = new Map<string, AdmissionTicket[]>();
  /** Turns that were running before (continued after a crash or a takeover): served before any new one. */
  private readonly ahead: AdmissionTicket[] = [];
  private queued = 0;
  private liveCount = 0;
  private lagMs = 0;
  private utilization = 0;
  /** Admissions left until the next tick. */
  private budget: number;
  private readonly now: () => number;

  constructor(limits: AdmissionLimitsInput = {}, options: AdmissionQueueOptions = {}) {
    this.limits = AdmissionLimits.parse(limits);
    this.budget = this.limits.batch ?? Number.POSITIVE_INFINITY;
    this.now = options.now ?? (() => performance.now());
    this.observer = options.observer;
  }

  /** Turns waiting. */
  get depth(): number {
    return this.queued;
  }

  /** Turns admitted and not yet released. */
  get live(): number {
    return this.liveCount;
  }

  /** True while the last measured lag or utilization is over its limit: nothing is admitted. */
  get saturated(): boolean {
    const { maxLagMs, maxUtilization } = this.limits;
    return (
      (maxLagMs > 0 && this.lagMs > maxLagMs) || (maxUtilization > 0 && this.utilization > maxUtilization)
    );
  }

  /**
   * A new turn asks for a place: an admitted ticket when there is room and nobody waits, a queued
   * one when the queue has room for it, undefined when it is full (in total or for this user).
   */
  reserve(userId: string): AdmissionTicket | undefined {
    const since = this.now();
    if (this.queued === 0 && this.hasRoom()) return this.admitAtOnce(userId, since);
    const mine = this.waiting.get(userId);
    const refusal: AdmissionRejection | undefined =
      this.queued >= this.limits.queueMax
        ? "queue_full"
        : (mine?.length ?? 0) >= this.limits.queueMaxPerUser
          ? "user_queue_full"
          : undefined;
    if (refusal) {
      this.observer?.admissionRejected(refusal);
      return undefined;
    }
    const ticket = new AdmissionTicket(this, userId, since, "queued");
    if (mine) mine.push(ticket);
    else this.waiting.set(userId, [ticket]);
    this.queued += 1;
    this.pump();
    return ticket;
  }

  /**
   * A turn that was running before this process had it (continued after a crash, or taken over from a
   * dead instance) asks for a place: admitted when there is room, else first in line, before every
   * new turn, and never refused. A surge of them (a dead instance's hundreds) starts at the pace the
   * loop keeps up with, as new turns do, instead of all at once beside the streams already running.
   */
  reserveAhead(userId: string): AdmissionTicket {
    const since = this.now();
    if (this.ahead.length === 0 && this.hasRoom()) return this.admitAtOnce(userId, since);
    const ticket = new AdmissionTicket(this, userId, since, "queued");
    this.ahead.push(ticket);
    this.queued += 1;
    this.pump();
    return ticket;
  }

  /** A turn that must not wait (a resumed one) takes a live slot regardless of the limits. */
  admitNow(userId: string): AdmissionTicket {
    this.liveCount += 1;
    return new AdmissionTicket(this, userId, this.now(), "admitted");
  }

  /**
   * The event loop's lag and utilization (0 to 1) just measured: a new batch, and admissions if the
   * loop keeps up.
   */
  tick(lagMs: number, utilization = 0): void {
    this.lagMs = lagMs;
    this.utilization = utilization;
    this.budget = this.limits.batch ?? Number.POSITIVE_INFINITY;
    this.pump();
  }

  /** See AdmissionTicket.release. */
  release(ticket: AdmissionTicket): void {
    switch (ticket.state) {
      case "left":
        return;
      case "queued": {
        const first = this.ahead.indexOf(ticket);
        if (first >= 0) this.ahead.splice(first, 1);
        else {
          const mine = this.waiting.get(ticket.userId) ?? [];
          const at = mine.indexOf(ticket);
          if (at >= 0) mine.splice(at, 1);
          if (mine.length === 0) this.waiting.delete(ticket.userId);
        }
        this.queued -= 1;
        ticket.state = "left";
        ticket.settled(false);
        return;
      }
      case "admitted":
        this.liveCount -= 1;
        ticket.state = "left";
        this.pump();
        return;
    }
  }

  /** The fast path: a live slot out of this tick's batch, no wait. */
  private admitAtOnce(userId: string, since: number): AdmissionTicket {
    this.liveCount += 1;
    this.budget -= 1;
    this.observer?.admissionWaited(0);
    return new AdmissionTicket(this, userId, since, "admitted");
  }

  private hasRoom(): boolean {
    return this.liveCount < this.limits.maxLiveTurns && this.budget > 0 && !this.saturated;
  }

  /** Admits waiting turns while there is room: those ahead first, then one per user in turn. */
  private pump(): void {
    while (this.queued > 0 && this.hasRoom()) {
      let ticket = this.ahead.shift();
      if (!ticket) {
        const next = this.waiting.entries().next();
        if (next.done) return;
        const [userId, mine] = next.value;
        ticket = mine.shift() as AdmissionTicket;
        // To the back of the round: the next user's first turn goes before this user's second.
        this.waiting.delete(userId);
        if (mine.length > 0) this.waiting.set(userId, mine);
      }
      this.queued -= 1;
      this.liveCount += 1;
      this.budget -= 1;
      this.observer?.admissionWaited((this.now() - ticket.since) / 1000);
      ticket.state = "admitted";
      ticket.settled(true);
    }
  }
}
