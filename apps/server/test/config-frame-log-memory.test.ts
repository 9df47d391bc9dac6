import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

describe("loadConfig: FRAME_LOG_MEMORY_BYTES, the frame log's byte bound", () => {
  it("defaults to 64 MiB", () => {
    expect(loadConfig({}).frameLogMemoryBytes).toBe(64 * 1024 * 1024);
  });

  it("reads it", () => {
    expect(loadConfig({ FRAME_LOG_MEMORY_BYTES: "204800" }).frameLogMemoryBytes).toBe(204_800);
  });

  it.each([
    [{ FRAME_LOG_MEMORY_BYTES: "0" }],
    [{ FRAME_LOG_MEMORY_BYTES: "1000" }],
    [{ FRAME_LOG_MEMORY_BYTES: "64MB" }],
    [{ FRAME_LOG_MEMORY_BYTES: "1.5" }],
  ])("refuses %o naming the variable", (env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow("FRAME_LOG_MEMORY_BYTES");
  });
});
