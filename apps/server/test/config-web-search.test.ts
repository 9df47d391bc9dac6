import { createLogger } from "@agentwire-chat/websocket";
import { describe, expect, it } from "vitest";
import { ConfigError, describeConfig, loadConfig } from "../src/config.js";

const KEY = "BSA-config-secret-93d2a1";

/** The ConfigError message loadConfig throws for `env`. */
function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig: web search", () => {
  it("is off when nothing is set", () => {
    const config = loadConfig({});
    expect(config.webSearch).toBeUndefined();
    expect(describeConfig(config).webSearch).toBe("off");
  });

  it("reads a SearXNG base URL and a Brave key (its URL optional)", () => {
    expect(
      loadConfig({ WEB_SEARCH_BACKEND: "searxng", WEB_SEARCH_URL: "http://10.0.0.5:8080" }).webSearch,
    ).toEqual({
      backend: "searxng",
      url: "http://10.0.0.5:8080",
    });
    expect(loadConfig({ WEB_SEARCH_BACKEND: "brave", WEB_SEARCH_API_KEY: KEY }).webSearch).toEqual({
      backend: "brave",
      apiKey: KEY,
    });
  });

  it("refuses incomplete or contradictory settings, naming the variable and never the key", () => {
    expect(errorOf({ WEB_SEARCH_BACKEND: "searxng" })).toMatch(/WEB_SEARCH_URL: needed/);
    expect(errorOf({ WEB_SEARCH_BACKEND: "brave" })).toMatch(/WEB_SEARCH_API_KEY: needed/);
    expect(errorOf({ WEB_SEARCH_BACKEND: "bing" })).toMatch(/WEB_SEARCH_BACKEND/);
    expect(errorOf({ WEB_SEARCH_URL: "http://search.internal" })).toMatch(/WEB_SEARCH_BACKEND: needed/);
    const stray = errorOf({ WEB_SEARCH_API_KEY: KEY });
    expect(stray).toMatch(/WEB_SEARCH_BACKEND: needed/);
    expect(stray).not.toContain(KEY);
    const unused = errorOf({
      WEB_SEARCH_BACKEND: "searxng",
      WEB_SEARCH_URL: "http://s",
      WEB_SEARCH_API_KEY: KEY,
    });
    expect(unused).toMatch(/WEB_SEARCH_API_KEY: not used/);
    expect(unused).not.toContain(KEY);
    expect(errorOf({ WEB_SEARCH_BACKEND: "searxng", WEB_SEARCH_URL: "ftp://s" })).toMatch(/WEB_SEARCH_URL/);
  });

  it("never logs the key: not in describeConfig, nor in the whole config logged by mistake", () => {
    const config = loadConfig({
      WEB_SEARCH_BACKEND: "brave",
      WEB_SEARCH_API_KEY: KEY,
      WEB_SEARCH_URL: "https://proxy.example",
    });
    expect(describeConfig(config).webSearch).toEqual({ backend: "brave", url: "https://proxy.example" });
    // Two layers: the field is not enumerable (any serialiser skips it), and the logger redacts apiKey.
    expect(JSON.stringify(config)).not.toContain(KEY);
    expect(JSON.stringify(describeConfig(config))).not.toContain(KEY);
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line) => lines.push(line) } });
    logger.info({ config: describeConfig(config) }, "starting");
    logger.info({ config }, "whole config, by mistake");
    expect(lines.join("")).toContain("proxy.example");
    expect(lines.join("")).not.toContain(KEY);
  });
});
