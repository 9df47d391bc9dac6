import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

describe("loadConfig: what start-up does with turns the previous process left running", () => {
  it("defaults: continue, at most 3 continuations per turn", () => {
    expect(loadConfig({}).turnRecovery).toEqual({ mode: "continue", maxRecoveries: 3 });
  });

  it("reads TURN_RECOVERY and TURN_MAX_RECOVERIES", () => {
    const config = loadConfig({ TURN_RECOVERY: "interrupt", TURN_MAX_RECOVERIES: "0" });
    expect(config.turnRecovery).toEqual({ mode: "interrupt", maxRecoveries: 0 });
  });

  it.each([
    [{ TURN_RECOVERY: "resume" }, "TURN_RECOVERY"],
    [{ TURN_RECOVERY: "Continue" }, "TURN_RECOVERY"],
    [{ TURN_MAX_RECOVERIES: "-1" }, "TURN_MAX_RECOVERIES"],
    [{ TURN_MAX_RECOVERIES: "many" }, "TURN_MAX_RECOVERIES"],
  ])("refuses %o naming the variable", (env, named) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(named);
  });
});
