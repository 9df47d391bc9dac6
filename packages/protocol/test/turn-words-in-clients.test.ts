import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLIENT_SOURCES = ["packages/client/src", "packages/react/src", "apps/cli/src", "apps/web/src"];
/** The wire's older words for turn statuses: the clients read them through turn-status-on-wire.ts only. */
const WIRE_WORDS = ["waiting_on_user", '"finished"', '"completed"', '"failed"', '"cancelled"'];

// The file tree, not git: the fresh-machine container that runs the tests has no git.
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : sources(path);
    return /\.(ts|tsx)$/.test(e.name) && e.name !== "turn-status-on-wire.ts" ? [path] : [];
  });
}

describe("the clients speak TurnStatus words", () => {
  it("no source of the SDK, the React hooks, the CLI or the web page holds a wire word of a turn status", () => {
    const files = CLIENT_SOURCES.flatMap((dir) => sources(join(ROOT, dir)));
    const found = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) =>
          WIRE_WORDS.filter((w) => line.includes(w)).map((w) => `${relative(ROOT, file)}:${i + 1}: ${w}`),
        ),
    );
    expect(found).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });
});
