import { AgentwireError } from "@agentwire-chat/protocol";
import { CloseCode } from "./close-codes.js";
import type { CommandHandler, CommandHandlers } from "./command-router.js";
import type { ConnectionContext } from "./connection-context.js";
import type { ServerLimits } from "./server-limits.js";
import type { UserRateLimit } from "./user-rate-limit.js";

/**
 * The command table with `chat_message` counted against the user's turn budget
 * (`userTurnsPerMinute` / `userTurnBurst`; across instances when `limit` counts in Redis). Over it the
 * frame gets `error rate_limited` and starts nothing; more refusals in a row than `rateLimitStrikes`
 * close the socket with 1008, as the per-socket frame limit does. Without `userTurnsPerMinute` the
 * table is returned as it is.
 */
export function limitTurnStarts(
  handlers: CommandHandlers,
  limit: UserRateLimit,
  limits: Pick<ServerLimits, "userTurnsPerMinute" | "userTurnBurst" | "rateLimitStrikes">,
): CommandHandlers {
  const perMinute = limits.userTurnsPerMinute;
  const start = handlers.chat_message;
  if (perMinute === undefined || !start) return handlers;
  const rate = { perMinute, burst: limits.userTurnBurst ?? perMinute };
  // Refusals in a row, per socket (a context lives as long as its socket).
  const strikes = new WeakMap<ConnectionContext, number>();

  const limited: CommandHandler<"chat_message"> = async (frame, ctx) => {
    let allowed: boolean;
    try {
      allowed = await limit.take(ctx.userId, rate);
    } catch (err) {
      ctx.logger.warn({ err }, "the per-user turn limit could not be checked");
      throw new AgentwireError("unavailable", "the turn rate limit cannot be checked now; retry later");
    }
    if (allowed) {
      strikes.delete(ctx);
      return start(frame, ctx);
    }
    const n = (strikes.get(ctx) ?? 0) + 1;
    strikes.set(ctx, n);
    if (n > limits.rateLimitStrikes) {
      ctx.logger.warn("per-user turn limit exceeded repeatedly; closing");
      const connection = ctx.connections.forUser(ctx.userId).find((c) => c.id === ctx.connectionId);
      connection?.close(CloseCode.policyViolation, "rate limit exceeded");
      return;
    }
    throw new AgentwireError("rate_limited", "too many turns started by this user; slow down");
  };
  return { ...handlers, chat_message: limited };
}
