import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
// Read from the tree, not git: a fresh machine's checkout may have no git to ask.
const SKIP = new Set(["node_modules", ".git", "dist", ".turbo", ".packed", "data", "coverage"]);
function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path.slice(ROOT.length)] : [];
  });
}
const workspaceNames = new Set(
  [
    ".",
    ...["packages", "apps", "bench"].flatMap((group) =>
      readdirSync(join(ROOT, group)).map((n) => join(group, n)),
    ),
  ]
    .map((dir) => join(ROOT, dir, "package.json"))
    .filter((file) => existsSync(file))
    .map((file) => (JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name)
    .filter((n): n is string => typeof n === "string"),
);

/** Scoped names an install line of a document hands to a package manager. */
function installedScopedNames(markdown: string): string[] {
  const names: string[] = [];
  for (const line of markdown.split("\n")) {
    const command = /\b(?:npm (?:install|i|add)|pnpm add|yarn add)\b(.*)/.exec(line);
    if (!command?.[1]) continue;
    for (const m of command[1].matchAll(/(?:^|\s)(@[a-z0-9-]+\/[a-z0-9._-]+?)(?:@[^\s]*)?(?=\s|$)/g)) {
      if (m[1]) names.push(m[1]);
    }
  }
  return names;
}

describe("install lines in the documents", () => {
  it("name only this project's packages, under a scope it does not share with a stranger's package", () => {
    // `@agentwire/client` on the public registry is another publisher's package (found in issue 36).
    for (const name of workspaceNames) expect(name.startsWith("@agentwire/"), name).toBe(false);
    const ours = [...workspaceNames].filter((n) => n.startsWith("@")).map((n) => n.slice(0, n.indexOf("/")));
    const scope = ours[0];
    expect(new Set(ours)).toEqual(new Set([scope]));
    const offenders: string[] = [];
    for (const doc of markdownFiles(ROOT)) {
      for (const name of installedScopedNames(readFileSync(join(ROOT, doc), "utf8"))) {
        // Third-party scoped packages (@types/…, @ag-ui/…) are fine; a name in our scope must be ours.
        if (name.startsWith(`${scope}/`) && !workspaceNames.has(name)) offenders.push(`${doc}: ${name}`);
        if (name.startsWith("@agentwire/")) offenders.push(`${doc}: ${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("finds the names in an install line", () => {
    expect(installedScopedNames("npm install @agentwire/client ws @types/ws@^8 # x")).toEqual([
      "@agentwire/client",
      "@types/ws",
    ]);
  });
});
