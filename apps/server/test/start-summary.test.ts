import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { plainLogLine } from "../src/plain-log-lines.js";
import { startSummary } from "../src/start-summary.js";

const facts = { url: "http://127.0.0.1:8787", webDist: "/srv/web", logLevel: "warn", logLevelFromEnv: false };

describe("the start-up summary", () => {
  it("names the URL to open and says no provider is configured, and which variables set one", () => {
    const text = startSummary(loadConfig({}), facts);
    expect(text).toContain("agentwire is listening on http://127.0.0.1:8787");
    expect(text).toMatch(/open +http:\/\/127\.0\.0\.1:8787\n/);
    expect(text).toContain(
      "no provider configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_COMPAT_ENDPOINTS (see README)",
    );
    expect(text).toMatch(/auth +none: every connection is user "local"/);
    expect(text).toMatch(/database +SQLite \.\/data\/agentwire\.db/);
    expect(text).toContain("warnings and errors only");
  });

  it("lists the configured providers with their models and the default, and never a key or password", () => {
    const config = loadConfig({
      OPENAI_API_KEY: "sk-openai-secret",
      OPENAI_MODEL: "gpt-4o-mini",
      ANTHROPIC_API_KEY: "sk-anthropic-secret",
      OPENAI_COMPAT_ENDPOINTS: "ollama=http://user:compat-pass@127.0.0.1:11434/v1",
      OLLAMA_API_KEY: "sk-compat-secret",
      DEFAULT_PROVIDER: "openai",
      AUTH_MODE: "token",
      AUTH_TOKENS: "alice:tok-secret-0123456789",
      DATABASE_URL: "postgres://agentwire:db-pass@db.internal:5433/agentwire",
      REDIS_URL: "redis://:redis-pass@cache:6379",
    });
    const text = startSummary(config, facts);
    expect(text).toMatch(
      /providers +openai \(gpt-4o-mini\), anthropic, ollama \(127\.0\.0\.1:11434\); default openai \/ gpt-4o-mini/,
    );
    expect(text).toMatch(
      /auth +token: create one with `pnpm agentwire token create --user NAME`; AUTH_TOKENS has tokens for alice/,
    );
    expect(text).toMatch(/database +Postgres db\.internal:5433\/agentwire\n/);
    expect(text).toMatch(/cluster +Redis cache:6379\n/);
    for (const secret of ["secret", "pass", "agentwire:"]) expect(text).not.toContain(secret);
  });

  it("says when no default provider is set, or when the default is not configured", () => {
    const noDefault = loadConfig({ ANTHROPIC_API_KEY: "k" });
    expect(startSummary(noDefault, facts)).toContain(
      "anthropic; no default (set DEFAULT_PROVIDER and DEFAULT_MODEL",
    );
    const wrong = loadConfig({ ANTHROPIC_API_KEY: "k", DEFAULT_PROVIDER: "openai" });
    expect(startSummary(wrong, facts)).toContain("DEFAULT_PROVIDER=openai is not one of them");
    const noModel = loadConfig({ ANTHROPIC_API_KEY: "k", DEFAULT_PROVIDER: "anthropic" });
    expect(startSummary(noModel, facts)).toContain("default anthropic / no model (set DEFAULT_MODEL)");
  });

  it("offers a loopback URL for a wildcard address and says when the web client is not built", () => {
    const config = loadConfig({ HOST: "0.0.0.0" });
    const text = startSummary(config, { ...facts, url: "http://0.0.0.0:8787" });
    expect(text).toContain("http://127.0.0.1:8787 (listening on every address)");
    expect(startSummary(config, { ...facts, webDist: undefined })).toContain(
      "web client not built: run `pnpm build`, then restart",
    );
  });

  it("names LOG_LEVEL when it chose the level", () => {
    const text = startSummary(loadConfig({}), { ...facts, logLevel: "debug", logLevelFromEnv: true });
    expect(text).toMatch(/logs +LOG_LEVEL=debug/);
  });
});

describe("plain log lines on a terminal", () => {
  it("shows time, level and message, then the other fields, and an error's stack indented below", () => {
    const time = new Date(2026, 0, 2, 3, 4, 5).getTime();
    const json = JSON.stringify({
      level: 40,
      time,
      pid: 1,
      hostname: "h",
      host: "0.0.0.0",
      err: { type: "Error", message: "boom", stack: "Error: boom\n    at x" },
      msg: "careful",
    });
    expect(plainLogLine(`${json}\n`)).toBe(
      '03:04:05 WARN  careful {"host":"0.0.0.0"}\n    Error: boom\n        at x\n',
    );
  });

  it("passes a line that is not JSON through unchanged", () => {
    expect(plainLogLine("not json\n")).toBe("not json\n");
  });
});
