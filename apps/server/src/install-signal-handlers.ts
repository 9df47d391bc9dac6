import type { Logger } from "pino";

/** The longest a graceful shutdown may take before the process gives up and exits 1. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * How soon after the first signal the same signal counts as the same request. One Ctrl-C arrives
 * twice under `pnpm start`: the terminal sends SIGINT to its whole process group, and pnpm forwards
 * the one it got to its child. A person pressing Ctrl-C again to force an exit takes longer than this.
 */
export const REPEATED_SIGNAL_WINDOW_MS = 500;

/**
 * On the first SIGTERM or SIGINT: run `shutdown` and exit 0, or exit 1 if it fails or takes longer than
 * the deadline. The same signal again within REPEATED_SIGNAL_WINDOW_MS is that same request and is
 * ignored; any later signal exits 1 at once.
 */
export function installSignalHandlers(
  shutdown: () => Promise<void>,
  logger: Logger,
  exit = process.exit,
  now = Date.now,
): void {
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first) {
      if (signal === first.signal && now() - first.at < REPEATED_SIGNAL_WINDOW_MS) return;
      logger.warn({ signal }, "second signal; exiting now");
      exit(1);
      return;
    }
    first = { signal, at: now() };
    logger.info({ signal }, "shutting down");
    const deadline = setTimeout(() => {
      logger.error("shutdown took too long; exiting");
      exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    shutdown().then(
      () => {
        clearTimeout(deadline);
        logger.info("shutdown complete");
        exit(0);
      },
      (err: unknown) => {
        clearTimeout(deadline);
        logger.error({ err }, "shutdown failed");
        exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
