/**
 * How soon after a SIGINT another one counts as the same Ctrl-C. Under `pnpm agentwire` one press
 * arrives twice: the terminal signals its whole process group, and pnpm forwards the one it got.
 * A person pressing again on purpose takes longer than this.
 */
export const SAME_PRESS_MS = 500;

/**
 * Ctrl-C for a whole chat session: one SIGINT listener for its lifetime, so a forwarded duplicate
 * never meets Node's default (exit). While a turn runs its handler gets each press, else `idle` does.
 */
export class Interrupts {
  private lastPress = Number.NEGATIVE_INFINITY;
  private handler: (() => void) | undefined;

  constructor(
    private readonly idle: () => void,
    private readonly clock: () => number = () => performance.now(),
  ) {
    process.on("SIGINT", this.onSignal);
  }

  /** Routes presses to `handler` until the returned function is called. */
  during(handler: () => void): () => void {
    this.handler = handler;
    return () => {
      if (this.handler === handler) this.handler = undefined;
    };
  }

  /** Removes the listener (the session ends). */
  close(): void {
    process.off("SIGINT", this.onSignal);
  }

  private readonly onSignal = () => {
    const now = this.clock();
    if (now - this.lastPress < SAME_PRESS_MS) return;
    this.lastPress = now;
    (this.handler ?? this.idle)();
  };
}
