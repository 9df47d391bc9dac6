import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, describeConfig, loadConfig } from "../src/config.js";

const dir = mkdtempSync(join(tmpdir(), "agentwire-model-settings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function file(text: string): string {
  files += 1;
  const path = join(dir, `f${files}.json`);
  writeFileSync(path, text);
  return path;
}

describe("MODEL_SETTINGS_FILE", () => {
  it("without it no model has settings", () => {
    const config = loadConfig({});
    expect(config.modelSettings).toBeUndefined();
    expect(
      config.scopes.settingsFor(config.modelSettings, "thread", { provider: "openai", model: "gpt-4o" }),
    ).toBe(undefined);
  });

  it("reads the table: <provider>:<model> beats the bare <model>, which serves every provider", () => {
    const path = file(
      JSON.stringify({
        models: {
          "gpt-4o": { temperature: 0.7, max_output_tokens: 2000 },
          "openai:gpt-4o": { temperature: 0.2 },
          "o4-mini": { reasoning_effort: "high", parallel_tool_calls: false },
        },
      }),
    );
    const config = loadConfig({ MODEL_SETTINGS_FILE: path });
    const table = config.modelSettings;
    expect(table?.lookup("openai", "gpt-4o")).toEqual({ temperature: 0.2 });
    expect(table?.lookup("azure", "gpt-4o")).toEqual({ temperature: 0.7, max_output_tokens: 2000 });
    expect(table?.lookup("openai", "o4-mini")).toEqual({
      reasoning_effort: "high",
      parallel_tool_calls: false,
    });
    expect(table?.lookup("openai", "gpt-4.1")).toBeUndefined();
    expect(describeConfig(config).modelSettings).toBe(3);
  });

  it("a scope's model_settings replace the model's entry key by key", () => {
    const config = loadConfig({
      MODEL_SETTINGS_FILE: file(
        JSON.stringify({ models: { "gpt-4o": { temperature: 0.7, max_output_tokens: 2000 } } }),
      ),
      CONTEXT_SCOPES_FILE: file(
        JSON.stringify({
          scopes: { editor: { base: "editor", model_settings: { temperature: 0, reasoning_effort: "low" } } },
        }),
      ),
    });
    const who = { provider: "openai", model: "gpt-4o" };
    expect(config.scopes.settingsFor(config.modelSettings, "editor", who)).toEqual({
      temperature: 0,
      max_output_tokens: 2000,
      reasoning_effort: "low",
    });
    expect(config.scopes.settingsFor(config.modelSettings, "thread", who)).toEqual({
      temperature: 0.7,
      max_output_tokens: 2000,
    });
    // A scope's settings alone, on a model the table does not list.
    expect(config.scopes.settingsFor(config.modelSettings, "editor", { provider: "x", model: "y" })).toEqual({
      temperature: 0,
      reasoning_effort: "low",
    });
  });

  it.each([
    [
      "an unknown key",
      { models: { "gpt-4o": { temprature: 0.2 } } },
      'MODEL_SETTINGS_FILE: models.gpt-4o: unrecognized key "temprature"',
    ],
    [
      "a temperature out of range",
      { models: { "gpt-4o": { temperature: 3 } } },
      "MODEL_SETTINGS_FILE: models.gpt-4o.temperature",
    ],
    [
      "an unknown reasoning effort",
      { models: { "openai:o4-mini": { reasoning_effort: "max" } } },
      "MODEL_SETTINGS_FILE: models.openai:o4-mini.reasoning_effort",
    ],
    [
      "a fractional max_output_tokens",
      { models: { m: { max_output_tokens: 1.5 } } },
      "MODEL_SETTINGS_FILE: models.m.max_output_tokens",
    ],
    ["a key beside models", { model: {} }, '(file): unrecognized key "model"'],
  ])("refuses to start on %s, naming the model and key", (_what, json, message) => {
    const path = file(JSON.stringify(json));
    expect(() => loadConfig({ MODEL_SETTINGS_FILE: path })).toThrow(ConfigError);
    expect(() => loadConfig({ MODEL_SETTINGS_FILE: path })).toThrow(message);
  });

  it("refuses to start on a file that is not JSON or cannot be read", () => {
    expect(() => loadConfig({ MODEL_SETTINGS_FILE: file("{ models:") })).toThrow(
      /MODEL_SETTINGS_FILE: .* not JSON/,
    );
    expect(() => loadConfig({ MODEL_SETTINGS_FILE: join(dir, "missing.json") })).toThrow(
      /MODEL_SETTINGS_FILE: .*missing\.json cannot be read/,
    );
  });
});

describe("CONTEXT_SCOPES_FILE model_settings", () => {
  it("refuses to start on an unknown key, naming the scope and the key", () => {
    const path = file(JSON.stringify({ scopes: { editor: { model_settings: { temprature: 0.2 } } } }));
    expect(() => loadConfig({ CONTEXT_SCOPES_FILE: path })).toThrow(ConfigError);
    expect(() => loadConfig({ CONTEXT_SCOPES_FILE: path })).toThrow(
      'CONTEXT_SCOPES_FILE: scopes.editor.model_settings: unrecognized key "temprature"',
    );
  });

  it("refuses a bad value, naming the scope and the key", () => {
    const path = file(
      JSON.stringify({ scopes: { research: { model_settings: { parallel_tool_calls: "no" } } } }),
    );
    expect(() => loadConfig({ CONTEXT_SCOPES_FILE: path })).toThrow(
      /CONTEXT_SCOPES_FILE: scopes\.research\.model_settings\.parallel_tool_calls: /,
    );
  });
});
