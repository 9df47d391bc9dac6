import { abortTurn, HANDOVER, SHUTDOWN } from "@agentwire-chat/agents";
import type { FrameLog } from "@agentwire-chat/storage";
import { ActiveTurn } from "./active-turn.js";

export type TurnRegistryOptions = {
  /** How long an ended turn stays visible to `get` (observers, tools that finish late). */
  keepEndedMs?: number;
  now?: () => number;
};

/** The turns of this process, one per thread: active (running or waiting on the user) or recently ended. */
export class TurnRegistry {
  private readonly turns = new Map<string, ActiveTurn>();
  /**
   * When each thread's turn ended, oldest end first (a Map keeps insertion order): each lookup and end
   * forgets those ended longer ago than `keepEndedMs`. Without it an ended turn stayed until its
   * thread was used again, so a process kept every thread's last turn for good.
   */
  private readonly ended = new Map<string, number>();
  /** Work a turn started beside itself that may outlive it (the summarizer): one per thread. */
  private readonly sideWork = new Map<string, { done: Promise<void>; stop: AbortController }>();
  private readonly keepEndedMs: number;
  private readonly now: () => number;

  constructor(options: TurnRegistryOptions = {}) {
    this.keepEndedMs = options.keepEndedMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Registers a turn on a thread, or returns undefined when one is already active there (busy); a
   * turn found waiting on the user in the database is registered as it is, `waiting_user`.
   */
  start(
    log: FrameLog,
    threadId: string,
    userId: string,
    turnId: string,
    status: "running" | "waiting_user" = "running",
  ): ActiveTurn | undefined {
    if (this.get(threadId)?.active) return undefined;
    const turn = new ActiveTurn(log, threadId, userId, turnId);
    turn.status = status;
    this.ended.delete(threadId);
    this.turns.set(threadId, turn);
    return turn;
  }

  /** The active or recently ended turn of a thread (check `active`). */
  get(threadId: string): ActiveTurn | undefined {
    this.forgetEnded();
    return this.turns.get(threadId);
  }

  /** Marks a turn ended; its frames stay in the log for `resume_chat`. */
  finish(turn: ActiveTurn): void {
    if (this.turns.get(turn.threadId) !== turn) return;
    this.ended.delete(turn.threadId);
    this.ended.set(turn.threadId, this.now());
    this.forgetEnded();
  }

  /** How many turns the registry holds, active and recently ended. */
  get size(): number {
    return this.turns.size;
  }

  private forgetEnded(): void {
    const cutoff = this.now() - this.keepEndedMs;
    for (const [threadId, endedAt] of this.ended) {
      if (endedAt >= cutoff) return;
      this.ended.delete(threadId);
      this.turns.delete(threadId);
    }
  }

  /** Turns not yet ended (running or waiting on the user). */
  active(): ActiveTurn[] {
    return [...this.turns.values()].filter((t) => t.active);
  }

  /**
   * Runs work beside a thread's turn that may end after it (the summarizer), at most one per thread:
   * undefined, and nothing started, while the thread's earlier side work still runs. `work` gets a
   * signal that shutdown aborts, and must not reject.
   */
  startSideWork(threadId: string, work: (shutdown: AbortSignal) => Promise<void>): Promise<void> | undefined {
    if (this.sideWork.has(threadId)) return undefined;
    const stop = new AbortController();
    // Started a microtask later, so the work can already be found by its thread (sideWorkOf).
    const done = Promise.resolve()
      .then(() => work(stop.signal))
      .finally(() => this.sideWork.delete(threadId));
    this.sideWork.set(threadId, { done, stop });
    return done;
  }

  /** The thread's side work still running, if any (tests wait on it; the next turn does not). */
  sideWorkOf(threadId: string): Promise<void> | undefined {
    return this.sideWork.get(threadId)?.done;
  }

  /** Waits (at most `timeoutMs`) for the running turns to end by themselves (a rolling deploy's drain). */
  async drain(timeoutMs: number): Promise<void> {
    if (timeoutMs <= 0) return;
    const running = this.active().filter((t) => t.status === "running");
    await settledOrDeadline(
      running.map((t) => t.driving),
      timeoutMs,
    );
  }

  /**
   * A rolling deploy's shutdown with other instances (Redis, TURN_RECOVERY=continue): stops every
   * running turn that can continue elsewhere and hands it over (see handOverTurn), waiting at most
   * `timeoutMs` for their drivers. The rest are left to `shutdown`.
   */
  async handOver(timeoutMs: number): Promise<void> {
    const running = this.active().filter((t) => t.status === "running" && t.continuable);
    for (const turn of running) abortTurn(turn.abort, HANDOVER);
    await settledOrDeadline(
      running.map((t) => t.driving),
      timeoutMs,
    );
  }

  /**
   * Shutdown: interrupts every running turn and waits (at most `timeoutMs`) for their drivers to
   * store the partial answers. Turns waiting on the user are already stored and stay resumable.
   */
  async shutdown(timeoutMs: number): Promise<void> {
    const running = this.active().filter((t) => t.status === "running");
    for (const turn of running) abortTurn(turn.abort, SHUTDOWN);
    const side = [...this.sideWork.values()];
    for (const work of side) abortTurn(work.stop, SHUTDOWN);
    await settledOrDeadline([...running.map((t) => t.driving), ...side.map((w) => w.done)], timeoutMs);
  }
}

async function settledOrDeadline(work: (Promise<void> | undefined)[], timeoutMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([Promise.allSettled(work), deadline]);
  clearTimeout(timer);
}
