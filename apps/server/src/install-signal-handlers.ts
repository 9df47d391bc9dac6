import type { Logger } from "pino";

/** The longest a graceful shutdown may take before the process gives up and exits 1. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * On the first SIGTERM or SIGINT: run `shutdown` and exit 0, or exit 1 if it fails or takes longer than
 * the deadline. A second signal exits at once.
 */
export function installSignalHandlers(
  shutdown: () => Promise<void>,
  logger: Logger,
  exit = process.exit,
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, "second signal; exiting now");
      exit(1);
      return;
    }
    stopping = true;
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
