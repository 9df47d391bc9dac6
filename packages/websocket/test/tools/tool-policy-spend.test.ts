import { describe, expect, it } from "vitest";
import { parseToolPolicyFile, ToolPolicies } from "../../src/index.js";

describe("TOOL_POLICY_FILE: spend limits per user and group", () => {
  const policies = new ToolPolicies(
    {},
    {
      groups: {
        staff: { members: ["alice", "bob", "carol"], spend_limit_daily_usd: 2, spend_limit_thread_usd: 1 },
        power: { members: ["bob"], spend_limit_daily_usd: 20 },
      },
      users: { alice: { spend_limit_daily_usd: 50 } },
    },
  );
  const env = { userDailyUsd: 5, threadUsd: 0.5 };

  it("the user's own entry beats their groups' (a later group beats an earlier), which beat the environment's", () => {
    expect(policies.spendLimitsFor("alice", env)).toEqual({ userDailyUsd: 50, threadUsd: 1 });
    expect(policies.spendLimitsFor("bob", env)).toEqual({ userDailyUsd: 20, threadUsd: 1 });
    expect(policies.spendLimitsFor("carol", env)).toEqual({ userDailyUsd: 2, threadUsd: 1 });
    expect(policies.spendLimitsFor("dave", env)).toEqual(env);
    expect(policies.spendLimitsFor("dave", {})).toEqual({ userDailyUsd: undefined, threadUsd: undefined });
  });

  it("a bad limit is refused naming the user and field", () => {
    const bad = parseToolPolicyFile({ users: { alice: { spend_limit_daily_usd: -1 } } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/^user "alice": spend_limit_daily_usd: /);
    const typo = parseToolPolicyFile({ groups: { g: { members: ["a"], spend_limit_daily: 1 } } });
    expect(typo.ok).toBe(false);
  });
});
