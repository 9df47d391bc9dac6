import { RunningTurn } from "./running-turn.js";

export type TurnRegistryOptions = {
  /** How long a finished turn's frames stay available for `resume_chat`. */
  keepFinishedMs?: number;
  now?: () => number;
};

/** The turns of this process, one per thread: running, waiting on the user, or recently finished. */
export class TurnRegistry {
  private readonly turns = new Map<string, { turn: RunningTurn; finishedAt?: number }>();
  private readonly keepFinishedMs: number;
  private readonly now: () => number;

  constructor(options: TurnRegistryOptions = {}) {
    this.keepFinishedMs = options.keepFinishedMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Starts a turn on a thread, or returns undefined when one is already active there (busy). */
  start(threadId: string, userId: string, turnId: string, lastSeq: number): RunningTurn | undefined {
    const existing = this.get(threadId);
    if (existing && existing.phase !== "finished") return undefined;
    const turn = new RunningTurn(threadId, userId, turnId, Math.max(lastSeq, existing?.lastSeq ?? 0));
    this.turns.set(threadId, { turn });
    return turn;
  }

  /** The active or recently finished turn of a thread. */
  get(threadId: string): RunningTurn | undefined {
    const entry = this.turns.get(threadId);
    if (!entry) return undefined;
    if (entry.finishedAt !== undefined && this.now() - entry.finishedAt > this.keepFinishedMs) {
      this.turns.delete(threadId);
      return undefined;
    }
    return entry.turn;
  }

  /** Marks a turn finished; its frames stay replayable for a while. */
  finish(turn: RunningTurn): void {
    turn.finish();
    const entry = this.turns.get(turn.threadId);
    if (entry?.turn === turn) entry.finishedAt = this.now();
  }

  /** Removes a socket from every turn it watches. */
  unwatchAll(sinkId: string): void {
    for (const { turn } of this.turns.values()) turn.unwatch(sinkId);
  }

  /** Turns not yet finished (running or waiting on the user). */
  active(): RunningTurn[] {
    return [...this.turns.values()].map((e) => e.turn).filter((t) => t.phase !== "finished");
  }

  /**
   * Shutdown: interrupts every running turn and waits (at most `timeoutMs`) for their drivers to
   * store the partial answers. Turns waiting on the user are already stored and stay resumable.
   */
  async shutdown(timeoutMs: number): Promise<void> {
    const running = this.active().filter((t) => t.phase === "running");
    for (const turn of running) turn.abort.abort("shutdown");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.allSettled(running.map((t) => t.driving)), deadline]);
    clearTimeout(timer);
  }
}
