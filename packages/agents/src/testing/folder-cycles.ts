import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The folder of `src` a path lies in: its first segment, or "." for a file at the top. */
function folderOf(src: string, path: string): string {
  const parts = relative(src, path).split(/[\\/]/);
  return parts.length > 1 ? (parts[0] ?? ".") : ".";
}

/** For each top folder of `src`, the other top folders its files import (relative imports, as written). */
export function folderImports(src: string): Map<string, Set<string>> {
  const imports = new Map<string, Set<string>>();
  const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f));
  for (const file of files) {
    const path = join(src, file);
    const from = folderOf(src, path);
    const targets = imports.get(from) ?? new Set<string>();
    imports.set(from, targets);
    for (const [, spec] of readFileSync(path, "utf8").matchAll(
      /(?:from|import|module)\s+"(\.{1,2}\/[^"]+)"/g,
    )) {
      const to = folderOf(src, resolve(dirname(path), spec ?? ""));
      if (to !== from) targets.add(to);
    }
  }
  return imports;
}

/** The sets of top folders of `src` that import each other in a loop (each sorted; none when imports point one way). */
export function folderCycles(src: string): string[][] {
  const imports = folderImports(src);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (folder: string): void => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder) ?? 0);
    stack.push(folder);
    for (const next of imports.get(folder) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) {
        low.set(folder, Math.min(low.get(folder) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(folder) !== index.get(folder)) return;
    const cycle = stack.splice(stack.indexOf(folder));
    if (cycle.length > 1) cycles.push(cycle.sort());
  };
  for (const folder of imports.keys()) if (!index.has(folder)) visit(folder);
  return cycles;
}
