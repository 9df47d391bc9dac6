import { RateLimiter } from "./rate-limiter.js";
import type { ServerLimits } from "./server-limits.js";

/** What to do with one client frame: handle it, refuse it (`rate_limited`), or close the socket 1008. */
export type FrameVerdict = "take" | "refuse" | "close";

/**
 * A socket's frame rate limit: `messagesPerSecond` with `messageBurst`, and after more refusals in a
 * row than `rateLimitStrikes` the socket is closed. Every route that reads client frames uses one.
 */
export class FrameGate {
  private readonly limiter: RateLimiter;
  private strikes = 0;

  constructor(
    private readonly limits: Pick<ServerLimits, "messagesPerSecond" | "messageBurst" | "rateLimitStrikes">,
  ) {
    this.limiter = new RateLimiter(limits.messagesPerSecond, limits.messageBurst);
  }

  /** Counts one frame against the limit. */
  admit(): FrameVerdict {
    if (this.limiter.tryTake()) {
      this.strikes = 0;
      return "take";
    }
    this.strikes += 1;
    return this.strikes > this.limits.rateLimitStrikes ? "close" : "refuse";
  }
}
