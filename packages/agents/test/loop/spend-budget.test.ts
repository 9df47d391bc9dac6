import { describe, expect, it } from "vitest";
import { TurnBudget } from "../../src/budget/turn-budget.js";

describe("TurnBudget spend allowance", () => {
  const spend = { limit: "user_daily" as const, limitUsd: 1, spentUsd: 0.5 };

  it("adds each call's cost and trips spend_limit once the spend before plus this turn's reaches the limit", () => {
    const budget = new TurnBudget({}, { wallClockTimer: false, spend });
    expect(budget.addCost(0.2)).toBeNull();
    expect(budget.signal.aborted).toBe(false);
    const breach = budget.addCost(0.4);
    expect(breach).toMatchObject({ reason: "spend_limit", limit: 1 });
    expect(breach?.observed).toBeCloseTo(1.1, 9);
    expect(budget.signal.aborted).toBe(true);
    expect(budget.costUsd).toBeCloseTo(0.6, 9);
    // The first breach stays the one reported; later calls still count their cost.
    expect(budget.addTokens(1)).toBe(breach);
    expect(budget.claimReport()).toBe(breach);
  });

  it("without an allowance, cost is counted but never limits the turn", () => {
    const budget = new TurnBudget({}, { wallClockTimer: false });
    expect(budget.addCost(1_000)).toBeNull();
    expect(budget.costUsd).toBe(1_000);
    expect(budget.breach).toBeNull();
  });
});
