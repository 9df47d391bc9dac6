import { createLogger, hashApiToken, resolveToolPolicy, ruleFor } from "@agentwire-chat/websocket";
import { describe, expect, it } from "vitest";
import { ConfigError, describeConfig, loadConfig } from "../src/config.js";

describe("loadConfig", () => {
  it("has local-first defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 8787,
      databasePath: "./data/agentwire.db",
      authMode: "none",
      staticTokens: [],
      allowedOrigins: [],
      logLevel: "info",
      providers: { compatEndpoints: [] },
    });
    expect(config.budget.MAX_DEPTH).toBe(3);
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["AUTH_MODE", "maybe"],
    ["LOG_LEVEL", "loud"],
    ["OPENAI_BASE_URL", "not a url"],
    ["OPENAI_COMPAT_ENDPOINTS", "local"],
    ["AUTH_TOKENS", "alice"],
    ["MAX_DEPTH", "-1"],
    ["MAX_WALL_CLOCK_MS", "soon"],
    ["TOOL_NETWORK", "sometimes"],
  ])("names the variable when %s=%s", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`\\b${name}: `));
  });

  it("gates or switches off the network class with TOOL_NETWORK, allowed by default", () => {
    expect(loadConfig({}).tools.policy.network).toBe("allow");
    for (const rule of ["off", "ask", "allow"] as const) {
      const policy = resolveToolPolicy(loadConfig({ TOOL_NETWORK: rule }).tools.policy);
      expect(ruleFor(policy, "thread", "network")).toBe(rule);
      expect(ruleFor(policy, "editor", "network")).toBe(rule);
    }
  });

  it("names every bad variable at once", () => {
    expect(() => loadConfig({ PORT: "x", AUTH_MODE: "y" })).toThrow(/PORT: [\s\S]*AUTH_MODE: /);
  });

  it("reads DATABASE_URL and its pool settings; a bad URL is named without its password; the summary redacts it", () => {
    const config = loadConfig({
      DATABASE_URL: "postgres://app:s3cret@db:5432/agentwire",
      DATABASE_POOL_SIZE: "4",
      DATABASE_SSL_MODE: "require",
    });
    expect(config.postgres).toEqual({
      url: "postgres://app:s3cret@db:5432/agentwire",
      poolSize: 4,
      statementTimeoutMs: 30_000,
      sslMode: "require",
    });
    expect(JSON.stringify(describeConfig(config))).not.toContain("s3cret");
    expect(loadConfig({}).postgres).toBeUndefined();
    for (const bad of ["postgres://app:s3c/ret@db:99999/x", "mysql://app:s3cret@db/x"]) {
      let error: unknown;
      try {
        loadConfig({ DATABASE_URL: bad, REDIS_URL: "redis://:s3cret@[bad" });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/DATABASE_URL: .*postgres:\/\//);
      expect((error as Error).message).toMatch(/REDIS_URL/);
      expect((error as Error).message).not.toContain("s3c");
    }
  });

  it("treats empty values as unset", () => {
    expect(loadConfig({ PORT: "", OPENAI_API_KEY: "" }).port).toBe(8787);
  });

  it("hashes AUTH_TOKENS and never echoes a bad entry", () => {
    const config = loadConfig({
      AUTH_MODE: "token",
      AUTH_TOKENS: "alice:aaaaaaaaaaaaaaaa1, bob:bbbbbbbbbbbbbbbb2",
    });
    expect(config.staticTokens).toEqual([
      { userId: "alice", tokenHash: hashApiToken("aaaaaaaaaaaaaaaa1") },
      { userId: "bob", tokenHash: hashApiToken("bbbbbbbbbbbbbbbb2") },
    ]);
    expect(() => loadConfig({ AUTH_TOKENS: "alice:short-secret" })).not.toThrow(/short-secret/);
  });

  it("takes a long task's wall clock (an hour, a month) as given", () => {
    for (const ms of [3_600_000, 31 * 86_400_000]) {
      const config = loadConfig({ MAX_WALL_CLOCK_MS: String(ms) });
      expect(config.budget.MAX_WALL_CLOCK_MS).toBe(ms);
    }
  });

  it("reads budgets, origins, providers and compatible endpoints", () => {
    const config = loadConfig({
      MAX_DEPTH: "5",
      ALLOWED_ORIGINS: "https://a.example, https://b.example",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: "https://proxy.example/v1",
      OPENAI_COMPAT_ENDPOINTS: "ollama=http://127.0.0.1:11434/v1",
      OLLAMA_API_KEY: "k",
      OLLAMA_API: "responses",
    });
    expect(config.budget.MAX_DEPTH).toBe(5);
    expect(config.allowedOrigins).toEqual(["https://a.example", "https://b.example"]);
    expect(config.providers.openai).toEqual({
      apiKey: "sk-test",
      baseURL: "https://proxy.example/v1",
      api: "chat",
    });
    expect(config.providers.compatEndpoints).toEqual([
      { name: "ollama", baseURL: "http://127.0.0.1:11434/v1", apiKey: "k", api: "responses" },
    ]);
    expect(() => loadConfig({ OPENAI_COMPAT_ENDPOINTS: "ollama=http://x/v1", OLLAMA_API: "v2" })).toThrow(
      /OLLAMA_API: expected "chat" or "responses"/,
    );
    const anthropic = loadConfig({
      ANTHROPIC_API_KEY: "ak",
      ANTHROPIC_PROMPT_CACHE: "off",
      OPENAI_API: "responses",
    });
    expect(anthropic.providers.anthropic?.promptCache).toBe(false);
    expect(() => loadConfig({ ANTHROPIC_PROMPT_CACHE: "no" })).toThrow(/ANTHROPIC_PROMPT_CACHE/);
  });

  it("keeps secrets out of logs, whether the summary or the whole config is logged", () => {
    const config = loadConfig({
      OPENAI_API_KEY: "sk-openai-secret",
      ANTHROPIC_API_KEY: "sk-anthropic-secret",
      OPENAI_COMPAT_ENDPOINTS: "local=http://127.0.0.1:1/v1",
      LOCAL_API_KEY: "sk-compat-secret",
    });
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line) => lines.push(line) } });
    logger.info({ config: describeConfig(config) }, "starting");
    logger.info({ config }, "whole config, by mistake");
    const output = lines.join("");
    for (const secret of ["sk-openai-secret", "sk-anthropic-secret", "sk-compat-secret"]) {
      expect(output).not.toContain(secret);
    }
  });
});

describe("SPEND_LIMIT_*", () => {
  it("is absent with no limit anywhere, and carries the limits and the unpriced choice when set", () => {
    expect(loadConfig({}).spendLimits).toBeUndefined();
    expect(
      loadConfig({ SPEND_LIMIT_USER_DAILY_USD: "5", SPEND_LIMIT_UNPRICED: "refuse" }).spendLimits,
    ).toEqual({
      userDailyUsd: 5,
      unpriced: "refuse",
    });
    expect(loadConfig({ SPEND_LIMIT_THREAD_USD: "0.5" }).spendLimits).toEqual({
      threadUsd: 0.5,
      unpriced: "allow",
    });
    expect(() => loadConfig({ SPEND_LIMIT_UNPRICED: "maybe" })).toThrow(/SPEND_LIMIT_UNPRICED: /);
    expect(() => loadConfig({ SPEND_LIMIT_USER_DAILY_USD: "-1" })).toThrow(/SPEND_LIMIT_USER_DAILY_USD: /);
  });
});
