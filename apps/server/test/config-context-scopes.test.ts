import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, describeConfig, loadConfig } from "../src/config.js";

const dir = mkdtempSync(join(tmpdir(), "agentwire-scopes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("CONTEXT_SCOPES_FILE", () => {
  it("without it only the built-in scopes exist", () => {
    expect(loadConfig({}).scopes.kinds().sort()).toEqual(["editor", "thread"]);
  });

  it("reads the operator's scopes; the summary names them", () => {
    const path = file(
      "good.json",
      JSON.stringify({
        scopes: {
          research: { guidance: "Cite sources.", tools: { remove: ["web_fetch"] }, budget: { MAX_DEPTH: 1 } },
        },
      }),
    );
    const config = loadConfig({ CONTEXT_SCOPES_FILE: path });
    expect(config.scopes.get("research")).toMatchObject({ base: "thread", guidance: "Cite sources." });
    expect(config.scopes.limitsFor(config.budget, "research").MAX_DEPTH).toBe(1);
    expect(config.scopes.limitsFor(config.budget, "thread").MAX_DEPTH).toBe(3);
    expect(describeConfig(config).scopes).toEqual(["thread", "editor", "research"]);
  });

  it.each([
    [
      "a bad field",
      JSON.stringify({ scopes: { research: { budget: { MAX_DEPTH: 0 } } } }),
      /CONTEXT_SCOPES_FILE: scopes\.research\.budget\.MAX_DEPTH/,
    ],
    [
      "an unknown key",
      JSON.stringify({ scopes: { research: { guidence: "typo" } } }),
      /CONTEXT_SCOPES_FILE: .*guidence/,
    ],
    ["not JSON", "{ scopes:", /CONTEXT_SCOPES_FILE: .* not JSON/],
  ])("fails start-up with a clear message on %s", (_what, text, message) => {
    const path = file(`bad-${Math.random().toString(36).slice(2)}.json`, text);
    expect(() => loadConfig({ CONTEXT_SCOPES_FILE: path })).toThrow(ConfigError);
    expect(() => loadConfig({ CONTEXT_SCOPES_FILE: path })).toThrow(message);
  });

  it("fails start-up when the file is missing", () => {
    expect(() => loadConfig({ CONTEXT_SCOPES_FILE: join(dir, "missing.json") })).toThrow(
      /CONTEXT_SCOPES_FILE: .*missing\.json cannot be read/,
    );
  });
});
