import { priceOf, type SpendAllowance } from "@agentwire-chat/agents";
import { AgentwireError, type SpendLimitKind, type SpendWarning } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";

/** The spend limits of one user, in USD; an absent limit is not in force. */
export type UserSpendLimits = { userDailyUsd?: number | undefined; threadUsd?: number | undefined };

/** SPEND_LIMIT_*: the environment's limits and what a model without a known price does under them. */
export type SpendLimitSettings = UserSpendLimits & { unpriced: "allow" | "refuse" };

/** The spend limits of the server: the environment's, replaced per user (TOOL_POLICY_FILE) when given. */
export type SpendLimits = {
  settings: SpendLimitSettings;
  /** The user's own limits (user beats group beats env); absent: the settings' for everyone. */
  limitsFor?: (userId: string) => UserSpendLimits;
};

/** One limit in force as a turn starts: the ledger's spend so far against it. */
export type SpendState = {
  limit: SpendLimitKind;
  limitUsd: number;
  spentUsd: number;
  /** The next UTC midnight for the daily limit; null for a thread's. */
  resetsAt: number | null;
};

/** At this share of a limit the turn's `usage` frame carries `spend_warning`. */
const WARN_AT = 0.8;

const DAY_MS = 86_400_000;

/**
 * The limits a turn starts under, with what they allow: what was spent before it (the whole ledger,
 * every instance's calls) and, as the turn runs, what its calls cost.
 */
export class SpendTracker {
  private turnUsd = 0;

  constructor(readonly states: readonly SpendState[]) {}

  /** Counts one call's cost (unpriced calls count 0). */
  add(usd: number): void {
    this.turnUsd += usd;
  }

  /** The allowance the turn's budget enforces: the limit with the least left. */
  allowance(): SpendAllowance | undefined {
    const [tightest] = [...this.states].sort((a, b) => a.limitUsd - a.spentUsd - (b.limitUsd - b.spentUsd));
    return tightest && { limit: tightest.limit, limitUsd: tightest.limitUsd, spentUsd: tightest.spentUsd };
  }

  /** The warning for the turn's `usage`: the limit most used, when it is at 80 % or more. */
  warning(): SpendWarning | undefined {
    let worst: SpendWarning | undefined;
    for (const state of this.states) {
      const spent = state.spentUsd + this.turnUsd;
      if (spent < state.limitUsd * WARN_AT) continue;
      if (worst && spent / state.limitUsd <= worst.spent_usd / worst.limit_usd) continue;
      worst = { limit: state.limit, limit_usd: state.limitUsd, spent_usd: spent, resets_at: state.resetsAt };
    }
    return worst;
  }
}

/** The next UTC midnight after `now`, in ms since the epoch. */
export function nextUtcMidnight(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}

/**
 * Checks a turn's start against the user's spend limits, before anything is stored: a limit reached
 * (spent ≥ limit, across threads and instances: the ledger is in the database) or, with
 * SPEND_LIMIT_UNPRICED=refuse, a model without a known price refuses it `spend_limit`. Returns what
 * the turn runs under, or undefined when no limit is in force. `refuse: false` (a turn that goes on
 * after the user's answer) only reads the allowance: its budget stops it at its next call instead.
 */
export async function checkSpend(
  limits: SpendLimits | undefined,
  repos: Repositories,
  where: { userId: string; threadId: string | undefined; model: string },
  options: { refuse?: boolean; now?: number } = {},
): Promise<SpendTracker | undefined> {
  const { refuse = true, now = Date.now() } = options;
  if (!limits) return undefined;
  const own = limits.limitsFor?.(where.userId) ?? limits.settings;
  if (own.userDailyUsd === undefined && own.threadUsd === undefined) return undefined;
  if (refuse && limits.settings.unpriced === "refuse" && priceOf(where.model) === undefined)
    throw new AgentwireError(
      "spend_limit",
      `model "${where.model}" has no known price and spend limits are in force (SPEND_LIMIT_UNPRICED=refuse)`,
    );
  const states: SpendState[] = [];
  if (own.userDailyUsd !== undefined) {
    const resetsAt = nextUtcMidnight(now);
    const spentUsd = await repos.llmCalls.spend(where.userId, { since: resetsAt - DAY_MS });
    states.push({ limit: "user_daily", limitUsd: own.userDailyUsd, spentUsd, resetsAt });
  }
  if (own.threadUsd !== undefined) {
    // A new thread has spent nothing yet; its first turn still runs under the limit.
    const spentUsd =
      where.threadId === undefined
        ? 0
        : await repos.llmCalls.spend(where.userId, { threadId: where.threadId });
    states.push({ limit: "thread", limitUsd: own.threadUsd, spentUsd, resetsAt: null });
  }
  const reached = states.find((s) => s.spentUsd >= s.limitUsd);
  if (reached && refuse) throw new AgentwireError("spend_limit", limitMessage(reached));
  return new SpendTracker(states);
}

/** `daily spend limit of $5.00 reached ($5.02 spent); resets at 2026-11-29T00:00:00Z`. */
function limitMessage(state: SpendState): string {
  const what = state.limit === "user_daily" ? "daily" : "thread";
  const head = `${what} spend limit of ${usd(state.limitUsd)} reached (${usd(state.spentUsd)} spent)`;
  if (state.resetsAt === null) return `${head}; a thread's limit does not reset`;
  return `${head}; resets at ${new Date(state.resetsAt).toISOString().replace(".000Z", "Z")}`;
}

/** Cents, or four places below a cent so a small limit or spend never reads `$0.00`. */
function usd(amount: number): string {
  return `$${amount > 0 && amount < 0.01 ? amount.toFixed(4) : amount.toFixed(2)}`;
}
