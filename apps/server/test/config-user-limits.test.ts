import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

describe("loadConfig: per-user limits and the client tool reconnect grace", () => {
  it("defaults: 16 sockets per user, no turn limit, no grace on one instance, 10 s with REDIS_URL", () => {
    const single = loadConfig({});
    expect(single.userLimits).toEqual({
      maxConnectionsPerUser: 16,
      userTurnsPerMinute: undefined,
      userTurnBurst: undefined,
    });
    expect(single.tools.clientToolReconnectGraceMs).toBe(0);
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1:6379" }).tools.clientToolReconnectGraceMs).toBe(10_000);
  });

  it("reads MAX_CONNECTIONS_PER_USER, USER_TURNS_PER_MINUTE, USER_TURN_BURST, CLIENT_TOOL_RECONNECT_GRACE_MS", () => {
    const config = loadConfig({
      MAX_CONNECTIONS_PER_USER: "4",
      USER_TURNS_PER_MINUTE: "30",
      USER_TURN_BURST: "5",
      CLIENT_TOOL_RECONNECT_GRACE_MS: "0",
      REDIS_URL: "redis://127.0.0.1:6379",
    });
    expect(config.userLimits).toEqual({ maxConnectionsPerUser: 4, userTurnsPerMinute: 30, userTurnBurst: 5 });
    expect(config.tools.clientToolReconnectGraceMs).toBe(0);
  });

  it.each([
    [{ MAX_CONNECTIONS_PER_USER: "0" }, "MAX_CONNECTIONS_PER_USER"],
    [{ USER_TURNS_PER_MINUTE: "often" }, "USER_TURNS_PER_MINUTE"],
    [{ CLIENT_TOOL_RECONNECT_GRACE_MS: "-1" }, "CLIENT_TOOL_RECONNECT_GRACE_MS"],
    [{ USER_TURN_BURST: "5" }, "USER_TURN_BURST: needs USER_TURNS_PER_MINUTE"],
  ])("refuses %o naming the variable", (env, named) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(named);
  });
});
