import { describe, expect, it } from "vitest";
import {
  type AdmissionObserver,
  AdmissionQueue,
  type AdmissionRejection,
  type AdmissionTicket,
  watchEventLoopLag,
} from "../../src/index.js";

/** Records what the queue reports, as the metrics would see it. */
function recorder(): AdmissionObserver & { waits: number[]; rejected: AdmissionRejection[] } {
  const waits: number[] = [];
  const rejected: AdmissionRejection[] = [];
  return {
    waits,
    rejected,
    admissionWaited: (s) => waits.push(s),
    admissionRejected: (r) => rejected.push(r),
  };
}

/** Takes a ticket that must exist. */
function take(queue: AdmissionQueue, userId: string): AdmissionTicket {
  const ticket = queue.reserve(userId);
  if (!ticket) throw new Error(`no ticket for ${userId}`);
  return ticket;
}

/** The order in which queued tickets are admitted, by label. */
function admissionOrder(entries: [string, AdmissionTicket][]): string[] {
  const order: string[] = [];
  const controller = new AbortController();
  for (const [label, ticket] of entries) {
    void ticket.wait(controller.signal).then((admitted) => {
      if (admitted) order.push(label);
    });
  }
  return order;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("admission queue", () => {
  it("admits at once while there is room, synchronously, with a wait of 0", () => {
    const observer = recorder();
    const queue = new AdmissionQueue({ maxLiveTurns: 2 }, { observer });
    const a = take(queue, "u");
    const b = take(queue, "u");
    expect([a.admitted, b.admitted]).toEqual([true, true]);
    expect(queue.live).toBe(2);
    expect(queue.depth).toBe(0);
    expect(observer.waits).toEqual([0, 0]);
  });

  it("queues past maxLiveTurns and admits the next when a slot is released, with its wait time", async () => {
    let now = 1_000;
    const observer = recorder();
    const queue = new AdmissionQueue({ maxLiveTurns: 1 }, { observer, now: () => now });
    const running = take(queue, "u");
    const waiting = take(queue, "u");
    expect(waiting.admitted).toBe(false);
    expect(queue.depth).toBe(1);
    const admitted = waiting.wait(new AbortController().signal);
    now += 250;
    running.release();
    expect(await admitted).toBe(true);
    expect(queue.live).toBe(1);
    expect(queue.depth).toBe(0);
    expect(observer.waits).toEqual([0, 0.25]);
    // Releasing twice frees one slot only.
    running.release();
    expect(queue.live).toBe(1);
  });

  it("serves users round-robin: one user's many turns delay another user's turn by one at most", async () => {
    const queue = new AdmissionQueue({ maxLiveTurns: 1 });
    let slot = take(queue, "alice");
    const entries: [string, AdmissionTicket][] = [
      ["alice-1", take(queue, "alice")],
      ["alice-2", take(queue, "alice")],
      ["alice-3", take(queue, "alice")],
      ["bob-1", take(queue, "bob")],
      ["alice-4", take(queue, "alice")],
      ["carol-1", take(queue, "carol")],
      ["bob-2", take(queue, "bob")],
    ];
    const order = admissionOrder(entries);
    const byLabel = new Map(entries);
    for (let i = 0; i < entries.length; i++) {
      slot.release();
      await flush();
      slot = byLabel.get(order.at(-1) as string) as AdmissionTicket;
    }
    expect(order).toEqual(["alice-1", "bob-1", "carol-1", "alice-2", "bob-2", "alice-3", "alice-4"]);
  });

  it("a continued turn (crash, takeover) goes before every waiting new turn, waits while there is no room, and is never refused", async () => {
    const queue = new AdmissionQueue({ maxLiveTurns: 1, queueMax: 2, queueMaxPerUser: 2 });
    let slot = take(queue, "alice");
    const entries: [string, AdmissionTicket][] = [
      ["alice-1", take(queue, "alice")],
      ["bob-1", take(queue, "bob")],
      // The queue is full for new turns; continued ones still get a place, in the order they came.
      ["carol-continued", queue.reserveAhead("carol")],
      ["dave-continued", queue.reserveAhead("dave")],
    ];
    expect(queue.reserve("erin")).toBeUndefined();
    expect(entries.map(([, t]) => t.admitted)).toEqual([false, false, false, false]);
    expect(queue.depth).toBe(4);
    const order = admissionOrder(entries);
    const byLabel = new Map(entries);
    for (let i = 0; i < entries.length; i++) {
      slot.release();
      await flush();
      slot = byLabel.get(order.at(-1) as string) as AdmissionTicket;
    }
    expect(order).toEqual(["carol-continued", "dave-continued", "alice-1", "bob-1"]);
    // With room, a continued turn is admitted at once; a stopped one leaves its place.
    slot.release();
    expect(queue.reserveAhead("carol").admitted).toBe(true);
    const stopped = queue.reserveAhead("dave");
    const stop = new AbortController();
    stop.abort();
    expect(await stopped.wait(stop.signal)).toBe(false);
    expect(queue.depth).toBe(0);
  });

  it("refuses past the total bound and past the per-user bound, and counts each refusal", () => {
    const observer = recorder();
    const queue = new AdmissionQueue({ maxLiveTurns: 1, queueMax: 3, queueMaxPerUser: 2 }, { observer });
    take(queue, "alice");
    take(queue, "alice");
    take(queue, "alice");
    expect(queue.reserve("alice")).toBeUndefined();
    take(queue, "bob");
    expect(queue.depth).toBe(3);
    expect(queue.reserve("carol")).toBeUndefined();
    expect(observer.rejected).toEqual(["user_queue_full", "queue_full"]);
  });

  it("with queueMax 0 nothing waits: a turn without room is refused", () => {
    const queue = new AdmissionQueue({ maxLiveTurns: 1, queueMax: 0 });
    expect(take(queue, "u").admitted).toBe(true);
    expect(queue.reserve("u")).toBeUndefined();
  });

  it("never admits a ticket whose wait was aborted, and frees its place in the queue", async () => {
    const queue = new AdmissionQueue({ maxLiveTurns: 1, queueMax: 2 });
    const running = take(queue, "u");
    const stopped = take(queue, "u");
    const next = take(queue, "u");
    const stop = new AbortController();
    const stoppedWait = stopped.wait(stop.signal);
    const nextWait = next.wait(new AbortController().signal);
    stop.abort("stop");
    expect(await stoppedWait).toBe(false);
    expect(queue.depth).toBe(1);
    // Its place is free again: another turn may queue.
    const later = take(queue, "u");
    running.release();
    expect(await nextWait).toBe(true);
    expect(stopped.admitted).toBe(false);
    expect(later.admitted).toBe(false);
    expect(queue.live).toBe(1);
    // A signal aborted before the wait ends it at once too.
    const aborted = AbortSignal.abort("stop");
    expect(await later.wait(aborted)).toBe(false);
    expect(queue.depth).toBe(0);
  });

  it("pauses admissions while the measured lag is over the limit, and resumes when it recovers", async () => {
    const queue = new AdmissionQueue({ maxLiveTurns: 100, maxLagMs: 40 });
    queue.tick(55);
    expect(queue.saturated).toBe(true);
    const waiting = take(queue, "u");
    expect(waiting.admitted).toBe(false);
    const admitted = waiting.wait(new AbortController().signal);
    queue.tick(41);
    expect(waiting.admitted).toBe(false);
    queue.tick(12);
    expect(await admitted).toBe(true);
    // A slot released while saturated admits nobody either.
    queue.tick(100);
    const second = take(queue, "u");
    waiting.release();
    expect(second.admitted).toBe(false);
    queue.tick(0);
    expect(second.admitted).toBe(true);
  });

  it("pauses admissions while the event loop's utilization is over the limit, and resumes below it", async () => {
    const queue = new AdmissionQueue({ maxLiveTurns: 100, maxLagMs: 40, maxUtilization: 0.8 });
    queue.tick(0, 0.95);
    expect(queue.saturated).toBe(true);
    const waiting = take(queue, "u");
    expect(waiting.admitted).toBe(false);
    const admitted = waiting.wait(new AbortController().signal);
    queue.tick(0, 0.81);
    expect(waiting.admitted).toBe(false);
    queue.tick(0, 0.8);
    expect(await admitted).toBe(true);
    // Either brake alone holds admissions.
    queue.tick(41, 0.1);
    expect(take(queue, "u").admitted).toBe(false);
  });

  it("maxUtilization 0 is no utilization brake", () => {
    const queue = new AdmissionQueue({ maxUtilization: 0 });
    queue.tick(0, 1);
    expect(take(queue, "u").admitted).toBe(true);
  });

  it("maxLagMs 0 is no lag brake", () => {
    const queue = new AdmissionQueue({ maxLagMs: 0 });
    queue.tick(10_000);
    expect(take(queue, "u").admitted).toBe(true);
  });

  it("admits at most `batch` turns per tick, fast path included: a burst spreads over ticks", () => {
    const queue = new AdmissionQueue({ maxLiveTurns: 1_000, batch: 3, queueMaxPerUser: 1_000 });
    const tickets = Array.from({ length: 10 }, (_, i) => take(queue, `user-${i % 4}`));
    const admittedCount = () => tickets.filter((t) => t.admitted).length;
    expect(admittedCount()).toBe(3);
    expect(queue.depth).toBe(7);
    queue.tick(0);
    expect(admittedCount()).toBe(6);
    queue.tick(0);
    expect(admittedCount()).toBe(9);
    // A saturated tick renews the batch but admits nothing.
    queue.tick(500);
    expect(admittedCount()).toBe(9);
    queue.tick(0);
    expect(admittedCount()).toBe(10);
    expect(queue.depth).toBe(0);
    expect(queue.live).toBe(10);
  });

  it("admitNow takes a live slot regardless of the limits, and a released slot admits the next turn", async () => {
    const queue = new AdmissionQueue({ maxLiveTurns: 1 });
    const resumed = queue.admitNow("u");
    expect(resumed.admitted).toBe(true);
    expect(queue.admitNow("u").admitted).toBe(true);
    expect(queue.live).toBe(2);
    const fresh = take(queue, "v");
    expect(fresh.admitted).toBe(false);
    resumed.release();
    expect(fresh.admitted).toBe(false);
    expect(queue.live).toBe(1);
  });

  it("a queued turn's ticket admitted before it waits needs no wait", async () => {
    const queue = new AdmissionQueue({ maxLiveTurns: 1 });
    const running = take(queue, "u");
    const next = take(queue, "u");
    running.release();
    expect(next.admitted).toBe(true);
    expect(await next.wait(new AbortController().signal)).toBe(true);
  });
});

describe("event-loop lag watch", () => {
  it("reports how late its timer fired when the loop was blocked", async () => {
    const lags: number[] = [];
    let blocked = false;
    const reported = new Promise<number>((resolve) => {
      const stop = watchEventLoopLag(10, (lag) => {
        lags.push(lag);
        if (!blocked) {
          blocked = true;
          // Blocks the loop for 80 ms: the next tick comes about 70 ms late.
          const until = performance.now() + 80;
          while (performance.now() < until) {}
          return;
        }
        stop();
        resolve(lag);
      });
    });
    expect(await reported).toBeGreaterThanOrEqual(60);
  });

  it("reports the loop's utilization, a moving average that climbs towards 1 while every tick is busy", async () => {
    const busy = await new Promise<number[]>((resolve) => {
      const seen: number[] = [];
      const stop = watchEventLoopLag(10, (_lag, utilization) => {
        seen.push(utilization);
        if (utilization > 0.6 || seen.length >= 200) {
          stop();
          resolve(seen);
          return;
        }
        // Busy for longer than the interval: the loop is never idle between ticks.
        const until = performance.now() + 15;
        while (performance.now() < until) {}
      });
    });
    expect(busy.at(-1)).toBeGreaterThan(0.6);
    // A moving average: it climbs over several ticks, not in one.
    expect(busy.length).toBeGreaterThan(2);
  });
});
