import { describe, expect, it } from "vitest";
import { ConfigError, describeConfig, loadConfig } from "../src/config.js";

describe("loadConfig: admission of new turns (MAX_LIVE_TURNS, ADMISSION_*)", () => {
  it("defaults: 2,000 live turns, 40 ms of lag, 80 % utilization, 10 per tick, 10,000 waiting; per user 100 (all of them with AUTH_MODE=none)", () => {
    const one = { maxLiveTurns: 2_000, maxLagMs: 40, maxUtilization: 0.8, batch: 10, queueMax: 10_000 };
    expect(loadConfig({}).admission).toEqual({ ...one, queueMaxPerUser: 10_000 });
    expect(loadConfig({ AUTH_MODE: "token" }).admission).toEqual({ ...one, queueMaxPerUser: 100 });
    // The per-user default never exceeds the total.
    expect(loadConfig({ AUTH_MODE: "token", ADMISSION_QUEUE_MAX: "30" }).admission.queueMaxPerUser).toBe(30);
    expect(describeConfig(loadConfig({})).admission).toEqual({ ...one, queueMaxPerUser: 10_000 });
  });

  it("reads every variable; 0 turns a brake off, or lets nothing wait", () => {
    const config = loadConfig({
      AUTH_MODE: "token",
      MAX_LIVE_TURNS: "500",
      ADMISSION_MAX_LAG_MS: "0",
      ADMISSION_MAX_UTILIZATION: "0.5",
      ADMISSION_BATCH: "5",
      ADMISSION_QUEUE_MAX: "0",
      ADMISSION_QUEUE_MAX_PER_USER: "0",
    });
    expect(config.admission).toEqual({
      maxLiveTurns: 500,
      maxLagMs: 0,
      maxUtilization: 0.5,
      batch: 5,
      queueMax: 0,
      queueMaxPerUser: 0,
    });
  });

  it.each([
    [{ MAX_LIVE_TURNS: "0" }, "MAX_LIVE_TURNS: "],
    [{ MAX_LIVE_TURNS: "many" }, "MAX_LIVE_TURNS: "],
    [{ ADMISSION_MAX_LAG_MS: "-1" }, "ADMISSION_MAX_LAG_MS: "],
    [{ ADMISSION_MAX_UTILIZATION: "1.5" }, "ADMISSION_MAX_UTILIZATION: "],
    [{ ADMISSION_BATCH: "0" }, "ADMISSION_BATCH: "],
    [{ ADMISSION_QUEUE_MAX: "1.5" }, "ADMISSION_QUEUE_MAX: "],
    [{ ADMISSION_QUEUE_MAX_PER_USER: "-3" }, "ADMISSION_QUEUE_MAX_PER_USER: "],
    [
      { ADMISSION_QUEUE_MAX: "10", ADMISSION_QUEUE_MAX_PER_USER: "11" },
      "ADMISSION_QUEUE_MAX_PER_USER: must be at most ADMISSION_QUEUE_MAX",
    ],
  ])("refuses %o naming the variable", (env, named) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(named);
  });
});
