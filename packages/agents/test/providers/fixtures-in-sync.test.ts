import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LOCAL_FIXTURES_DIR, SHARED_FIXTURES_DIR } from "./helpers/fixtures.js";

// The tests replay the copies inside the repo. `fixtures.sha256` holds the checksums of the shared
// research bundle's originals, so the copies are checked everywhere, with or without the bundle.
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

describe("provider fixtures", () => {
  const local = readdirSync(LOCAL_FIXTURES_DIR);

  it("are exactly the recordings listed in the manifest", () => {
    expect(local.sort()).toEqual([...manifest.keys()].sort());
  });

  it.each(local)("%s is byte-identical to the recorded original", (name) => {
    expect(sha256(`${LOCAL_FIXTURES_DIR}${name}`)).toBe(manifest.get(name));
  });

  it("match the shared bundle too, where it is present", () => {
    if (!existsSync(SHARED_FIXTURES_DIR)) return;
    const shared = readdirSync(SHARED_FIXTURES_DIR).filter((f) =>
      /^(openai_chat_|anthropic_).*\.(sse|txt)$/.test(f),
    );
    expect(shared.sort()).toEqual(local.sort());
    for (const name of shared) expect(sha256(`${SHARED_FIXTURES_DIR}${name}`)).toBe(manifest.get(name));
  });
});
