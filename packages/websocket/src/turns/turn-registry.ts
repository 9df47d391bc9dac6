import type { FrameLog } from "./frame-log.js";
import { RunningTurn } from "./running-turn.js";

export type TurnRegistryOptions = {
  /** How long an ended turn stays visible to `get` (observers, tools that finish late). */
  keepEndedMs?: number;
  now?: () => number;
};

/** The turns of this process, one per thread: active (running or waiting on the user) or recently ended. */
export class TurnRegistry {
  private readonly turns = new Map<string, { turn: RunningTurn; endedAt?: number }>();
  private readonly keepEndedMs: number;
  private readonly now: () => number;

  constructor(options: TurnRegistryOptions = {}) {
    this.keepEndedMs = options.keepEndedMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Starts a turn on a thread, or returns undefined when one is already active there (busy). */
  start(log: FrameLog, threadId: string, userId: string, turnId: string): RunningTurn | undefined {
    if (this.get(threadId)?.active) return undefined;
    const turn = new RunningTurn(log, threadId, userId, turnId);
    this.turns.set(threadId, { turn });
    return turn;
  }

  /** The active or recently ended turn of a thread (check `active`). */
  get(threadId: string): RunningTurn | undefined {
    const entry = this.turns.get(threadId);
    if (!entry) return undefined;
    if (entry.endedAt !== undefined && this.now() - entry.endedAt > this.keepEndedMs) {
      this.turns.delete(threadId);
      return undefined;
    }
    return entry.turn;
  }

  /** Marks a turn ended; its frames stay in the log for `resume_chat`. */
  finish(turn: RunningTurn): void {
    const entry = this.turns.get(turn.threadId);
    if (entry?.turn === turn) entry.endedAt = this.now();
  }

  /** Turns not yet ended (running or waiting on the user). */
  active(): RunningTurn[] {
    return [...this.turns.values()].map((e) => e.turn).filter((t) => t.active);
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
   * Shutdown: interrupts every running turn and waits (at most `timeoutMs`) for their drivers to
   * store the partial answers. Turns waiting on the user are already stored and stay resumable.
   */
  async shutdown(timeoutMs: number): Promise<void> {
    const running = this.active().filter((t) => t.status === "running");
    for (const turn of running) turn.abort.abort("shutdown");
    await settledOrDeadline(
      running.map((t) => t.driving),
      timeoutMs,
    );
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
