import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LOCAL_FIXTURES_DIR, SHARED_FIXTURES_DIR } from "./helpers/fixtures.js";

// The tests read the copies inside the repo; when the shared research bundle is present (as in CI),
// the copies must still be byte-identical to it.
describe.skipIf(!existsSync(SHARED_FIXTURES_DIR))("provider fixtures", () => {
  const local = readdirSync(LOCAL_FIXTURES_DIR);

  it("cover every Chat Completions and Messages recording of the shared bundle", () => {
    const shared = readdirSync(SHARED_FIXTURES_DIR).filter((f) =>
      /^(openai_chat_|anthropic_).*\.(sse|txt)$/.test(f),
    );
    expect(local.sort()).toEqual(shared.sort());
  });

  it.each(local)("%s is identical to the shared copy", (name) => {
    expect(readFileSync(`${LOCAL_FIXTURES_DIR}${name}`)).toEqual(
      readFileSync(`${SHARED_FIXTURES_DIR}${name}`),
    );
  });
});
