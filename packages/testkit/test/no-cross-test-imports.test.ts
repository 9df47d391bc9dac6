import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Each package tests itself: what tests share lives in @agentwire-chat/testkit, so no file reaches
 * into another package's test/ folder (an import, or a path it runs or reads) and moving a package's
 * tests never breaks another's. Reads the files themselves: the container has no git.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));

/** Every code file under packages/, apps/ and bench/, and the root's vitest files. */
function codeFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(entry.name)) files.push(path);
    }
  };
  for (const top of ["packages", "apps", "bench"]) walk(join(root, top));
  for (const name of readdirSync(root)) if (/^vitest.*\.ts$/.test(name)) files.push(join(root, name));
  return files;
}

/** The package folder a path lies in (`packages/client`, `apps/web`, `bench`), or the root's "". */
function packageOf(path: string): string {
  const parts = relative(root, path).split(sep);
  if (parts[0] === "packages" || parts[0] === "apps") return parts.slice(0, 2).join("/");
  return parts[0] === "bench" ? "bench" : "";
}

const inTestFolder = (path: string) => relative(root, path).split(sep)[2] === "test";

// Module specifiers (static, dynamic, vi.mock) and paths resolved against the file's own place.
const relativeRefs =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.mock\(\s*|new URL\(\s*|join\(\s*import\.meta\.dirname\s*,\s*|resolve\(\s*import\.meta\.dirname\s*,\s*)["'`](\.{1,2}\/[^"'`]*)["'`]/g;
// Paths spelled from the repository's root ("packages/agents/test/...").
const rootRefs = /["'`]((?:packages|apps)\/[a-z-]+\/test\/[^"'`]*)["'`]/g;

/** Each reference of `file` into another package's test/ folder, as `file -> target`. */
function crossTestRefs(file: string, text: string): string[] {
  const found: string[] = [];
  const report = (target: string) => {
    if (inTestFolder(target) && packageOf(target) !== packageOf(file))
      found.push(`${relative(root, file)} -> ${relative(root, target)}`);
  };
  for (const [, spec] of text.matchAll(relativeRefs)) report(resolve(dirname(file), spec ?? ""));
  // The root's vitest configs name the tests each run takes: that is their job.
  if (packageOf(file) !== "") for (const [, spec] of text.matchAll(rootRefs)) report(join(root, spec ?? ""));
  return found;
}

describe("each package's tests", () => {
  it("reach into no other package's test/ folder: shared helpers come from @agentwire-chat/testkit", () => {
    // This file's own examples below would count.
    const files = codeFiles().filter((file) => file !== fileURLToPath(import.meta.url));
    expect(files.length).toBeGreaterThan(300);
    expect(files.flatMap((file) => crossTestRefs(file, readFileSync(file, "utf8")))).toEqual([]);
  });

  it("would catch an import, a spawned script and a root path into another package's tests", () => {
    const file = join(root, "apps/cli/test/example.test.ts");
    const text = [
      'import { until } from "../../../packages/websocket/test/support/until.js";',
      'const child = new URL("../../../packages/client/test/child.ts", import.meta.url);',
      'const mcp = join(root, "packages/agents/test/tools/fixtures/mcp-test-server.mjs");',
      'import { ownHelper } from "./support/own-helper.js";',
    ].join("\n");
    expect(crossTestRefs(file, text)).toEqual([
      "apps/cli/test/example.test.ts -> packages/websocket/test/support/until.js",
      "apps/cli/test/example.test.ts -> packages/client/test/child.ts",
      "apps/cli/test/example.test.ts -> packages/agents/test/tools/fixtures/mcp-test-server.mjs",
    ]);
  });
});
