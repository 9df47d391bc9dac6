/**
 * How a reader waits on a pushing call: `notify` (a push arrived) or the call settling ends the
 * current `wait()`; `finished` and `failure` say how the call ended.
 */
export class SettleWait {
  finished = false;
  failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  /** Ends the current wait, if any. */
  readonly notify = (): void => {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  };

  /** Watches the call: once it settles, `finished` (and `failure`) are set and the wait ends. */
  watch(call: Promise<unknown>): void {
    call.then(
      () => {
        this.finished = true;
        this.notify();
      },
      (error: unknown) => {
        this.failure = { error };
        this.finished = true;
        this.notify();
      },
    );
  }

  /** Resolves at the next `notify` or when the call settles. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }
}
