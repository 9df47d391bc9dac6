import { execFile } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const PACKAGES = fileURLToPath(new URL("../../../", import.meta.url));

/** `pnpm pack` of a workspace package into `dest` (its prepack builds dist); the tarball's path. */
export async function packPackage(name: string, dest: string): Promise<string> {
  const before = new Set(readdirSync(dest));
  await run("npx", ["-y", "pnpm@10.34.8", "pack", "--pack-destination", dest], {
    cwd: join(PACKAGES, name),
    maxBuffer: 16 * 1024 * 1024,
  });
  const tarball = readdirSync(dest).find((f) => f.endsWith(".tgz") && !before.has(f));
  if (!tarball) throw new Error(`pnpm pack of ${name} wrote no tarball`);
  return join(dest, tarball);
}

/**
 * A fresh npm project in `dir` depending on the tarballs (and `extra` from the registry or npm's
 * cache), installed with npm as an app developer would. Overrides pin the packages' own
 * cross-dependencies (`@agentwire/protocol@0.1.0`) to the tarballs, which are not on the registry.
 */
export async function npmInstall(
  dir: string,
  tarballs: Record<string, string>,
  extra: Record<string, string>,
) {
  const files = Object.fromEntries(Object.entries(tarballs).map(([name, path]) => [name, `file:${path}`]));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: "packed-app",
      private: true,
      type: "module",
      dependencies: { ...files, ...extra },
      overrides: files,
    }),
  );
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  });
}
