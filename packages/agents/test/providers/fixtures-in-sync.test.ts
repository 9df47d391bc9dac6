import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LOCAL_FIXTURES_DIR } from "./helpers/fixtures.js";

// The provider recordings are vendored here: the shared research bundle (../shared/fixtures/providers)
// exists on dev machines only, so no test may depend on it, or pass quietly without it. `fixtures.sha256`
// holds the checksums of the bundle's originals; `node scripts/check-provider-fixtures.mjs` compares the
// bundle with them where it exists (and fails loudly where it does not).
const manifest = new Map(
  readFileSync(new URL("./fixtures.sha256", import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const [sum, name] = line.split(/\s+/);
      return [name as string, sum as string];
    }),
);
const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** The source of every provider test beside this file (a recording no test reads is dead weight). */
function providerTestSources(): string {
  const dir = fileURLToPath(new URL("./", import.meta.url));
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
    (f) => f.endsWith(".ts") && !f.endsWith("fixtures-in-sync.test.ts"),
  );
  return files.map((f) => readFileSync(`${dir}${f}`, "utf8")).join("\n");
}

describe("provider fixtures", () => {
  const local = readdirSync(LOCAL_FIXTURES_DIR);

  it("are exactly the recordings listed in the manifest, and there are some", () => {
    expect(local.length).toBeGreaterThan(0);
    expect(local.sort()).toEqual([...manifest.keys()].sort());
  });

  it.each(local)("%s is byte-identical to the recorded original", (name) => {
    expect(sha256(`${LOCAL_FIXTURES_DIR}${name}`)).toBe(manifest.get(name));
  });

  it("are each replayed by a provider test", () => {
    const sources = providerTestSources();
    expect(local.filter((name) => !sources.includes(name))).toEqual([]);
  });
});
