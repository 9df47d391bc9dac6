import type { BudgetReason } from "@agentwire-chat/protocol";
import { type BudgetLimits, defaultBudgetLimits } from "./budget-limits.js";

/** The first limit a turn ran past: `observed` is the value that would have exceeded `limit`. */
export type BudgetBreach = { reason: BudgetReason; limit: number; observed: number };

/** What a turn has used so far; plain JSON. */
export type BudgetUsed = {
  subtasks: number;
  llmCalls: number;
  toolCalls: number;
  tokens: number;
  bytes: number;
};

export type TurnBudgetOptions = {
  /** Clock in ms; injectable so wall-clock tests need no real time. */
  now?: () => number;
  /** Arm a timer that trips the budget at MAX_WALL_CLOCK_MS even while everything waits; default true. */
  wallClockTimer?: boolean;
  /** Counters carried over, e.g. from a suspended turn. */
  used?: Partial<BudgetUsed>;
  /** The spend limit in force (the smallest remaining, read at the start); absent: cost is not limited. */
  spend?: SpendAllowance;
};

/** A spend limit as a turn starts under it: the ledger's spend so far against the limit, in USD. */
export type SpendAllowance = { limit: "user_daily" | "thread"; limitUsd: number; spentUsd: number };

type Counted = "subtasks" | "llm_calls" | "tool_calls";

/** The longest delay setTimeout honours (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * One per root turn, shared by the whole tree. Counted actions are checked before they start, so a
 * counter never passes its limit; tokens and bytes are added after the fact. The first breach aborts
 * `signal`, which every level, provider stream and tool of the tree listens to.
 */
export class TurnBudget {
  readonly limits: Readonly<BudgetLimits>;
  readonly signal: AbortSignal;
  readonly startedAt: number;
  private readonly controller = new AbortController();
  private readonly now: () => number;
  private readonly counts: BudgetUsed;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private firstBreach: BudgetBreach | null = null;
  private reported = false;
  private frozen = false;
  private readonly spend: SpendAllowance | undefined;
  private turnCostUsd = 0;

  constructor(limits: Partial<BudgetLimits> = {}, options: TurnBudgetOptions = {}) {
    this.limits = { ...defaultBudgetLimits, ...limits };
    this.signal = this.controller.signal;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.counts = { subtasks: 0, llmCalls: 0, toolCalls: 0, tokens: 0, bytes: 0, ...options.used };
    this.spend = options.spend;
    if (options.wallClockTimer !== false) this.arm(this.limits.MAX_WALL_CLOCK_MS + 1);
  }

  private arm(ms: number): void {
    // Node fires a longer timer after 1 ms: a wall clock of weeks would re-arm every millisecond.
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        // Timers may fire a little early against the injected clock: re-arm until really past.
        if (!this.checkWallClock() && !this.frozen) {
          this.arm(Math.max(1, this.limits.MAX_WALL_CLOCK_MS - this.elapsedMs() + 1));
        }
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    this.timer.unref?.();
  }

  /** The first breach, or null while the turn is within budget. */
  get breach(): BudgetBreach | null {
    return this.firstBreach;
  }

  /** A copy of the counters. */
  get used(): BudgetUsed {
    return { ...this.counts };
  }

  /** Milliseconds since the turn started. */
  elapsedMs(): number {
    return this.now() - this.startedAt;
  }

  /** Counts one LLM call, subtask or tool call about to start; a breach means it must not start. */
  tryStart(kind: Counted): BudgetBreach | null {
    if (this.firstBreach) return this.firstBreach;
    const wall = this.checkWallClock();
    if (wall) return wall;
    const [key, max] = this.counterOf(kind);
    if (this.counts[key] + 1 > max) return this.trip(kind, max, this.counts[key] + 1);
    this.counts[key] += 1;
    return null;
  }

  /** Adds the tokens one provider call reported. */
  addTokens(tokens: number): BudgetBreach | null {
    this.counts.tokens += tokens;
    if (this.firstBreach) return this.firstBreach;
    const max = this.limits.MAX_TOTAL_TOKENS;
    return this.counts.tokens > max ? this.trip("tokens", max, this.counts.tokens) : null;
  }

  /** USD this budget's calls cost so far (unpriced calls count 0). */
  get costUsd(): number {
    return this.turnCostUsd;
  }

  /**
   * Adds the cost of one provider call; past the spend allowance (what was spent before plus this
   * turn reaching the limit) the budget trips `spend_limit`, observed being the spend so far.
   */
  addCost(usd: number): BudgetBreach | null {
    this.turnCostUsd += usd;
    if (this.firstBreach) return this.firstBreach;
    if (!this.spend) return null;
    const spent = this.spend.spentUsd + this.turnCostUsd;
    return spent >= this.spend.limitUsd ? this.trip("spend_limit", this.spend.limitUsd, spent) : null;
  }

  /** Adds the bytes of one (truncated) tool result. */
  addResultBytes(bytes: number): BudgetBreach | null {
    this.counts.bytes += bytes;
    if (this.firstBreach) return this.firstBreach;
    const max = this.limits.MAX_TOTAL_TOOL_RESULT_BYTES;
    return this.counts.bytes > max ? this.trip("bytes", max, this.counts.bytes) : null;
  }

  /** Trips the budget when the turn has run longer than MAX_WALL_CLOCK_MS. */
  checkWallClock(): BudgetBreach | null {
    if (this.firstBreach) return this.firstBreach;
    const elapsed = this.elapsedMs();
    const max = this.limits.MAX_WALL_CLOCK_MS;
    return elapsed > max ? this.trip("wall_clock", max, elapsed) : null;
  }

  /** The breach, the first time it is asked for: the turn reports `budget_exceeded` exactly once. */
  claimReport(): BudgetBreach | null {
    if (!this.firstBreach || this.reported) return null;
    this.reported = true;
    return this.firstBreach;
  }

  /** After the user cancelled, nothing is recorded as a breach any more. */
  freeze(): void {
    this.frozen = true;
    this.dispose();
  }

  /** Clears the wall-clock timer; call when the root turn ends. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private counterOf(kind: Counted): ["subtasks" | "llmCalls" | "toolCalls", number] {
    switch (kind) {
      case "subtasks":
        return ["subtasks", this.limits.MAX_TOTAL_SUBTASKS];
      case "llm_calls":
        return ["llmCalls", this.limits.MAX_TOTAL_LLM_CALLS];
      case "tool_calls":
        return ["toolCalls", this.limits.MAX_TOTAL_TOOL_CALLS];
    }
  }

  private trip(reason: BudgetReason, limit: number, observed: number): BudgetBreach | null {
    if (this.frozen) return null;
    this.firstBreach = { reason, limit, observed };
    this.dispose();
    this.controller.abort(this.firstBreach);
    return this.firstBreach;
  }
}
