import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

describe("MCP connection settings", () => {
  it("default to a 20 s handshake and a backoff of 1 s doubling to 60 s", () => {
    expect(loadConfig({}).tools.mcp).toEqual({
      connectTimeoutMs: 20_000,
      retry: { initialMs: 1_000, maxMs: 60_000 },
    });
  });

  it("read MCP_CONNECT_TIMEOUT_MS and MCP_RETRY_*", () => {
    const config = loadConfig({
      MCP_CONNECT_TIMEOUT_MS: "5000",
      MCP_RETRY_INITIAL_MS: "250",
      MCP_RETRY_MAX_MS: "30000",
    });
    expect(config.tools.mcp).toEqual({ connectTimeoutMs: 5_000, retry: { initialMs: 250, maxMs: 30_000 } });
  });

  it("refuse a cap below the first wait, and values out of range, naming the variable", () => {
    expect(() => loadConfig({ MCP_RETRY_INITIAL_MS: "5000", MCP_RETRY_MAX_MS: "1000" })).toThrow(
      /MCP_RETRY_MAX_MS: must be at least MCP_RETRY_INITIAL_MS/,
    );
    expect(() => loadConfig({ MCP_CONNECT_TIMEOUT_MS: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ MCP_CONNECT_TIMEOUT_MS: "soon" })).toThrow(/MCP_CONNECT_TIMEOUT_MS/);
  });
});
