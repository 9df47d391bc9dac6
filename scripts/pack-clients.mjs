#!/usr/bin/env node
// Until the client packages are on the npm registry, an app installs them from tarballs: this packs
// protocol, client and react (each one's prepack builds its dist) into one folder and prints the
// npm line that installs them together, so the client's protocol resolves to the tarball beside it.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dest = resolve(process.argv[2] ?? join(root, ".packed"));
mkdirSync(dest, { recursive: true });
const tarballs = [];
for (const name of ["protocol", "client", "react"]) {
  const before = new Set(readdirSync(dest));
  execFileSync("npx", ["-y", "pnpm@10.34.8", "pack", "--pack-destination", dest], {
    cwd: join(root, "packages", name),
    stdio: ["ignore", "ignore", "inherit"],
  });
  const made = readdirSync(dest).filter((f) => f.endsWith(".tgz") && !before.has(f));
  // A re-run overwrites the same file name, so fall back to the one named for this package.
  const tarball = made[0] ?? readdirSync(dest).find((f) => f.endsWith(".tgz") && f.includes(`-${name}-`));
  if (!tarball) throw new Error(`pnpm pack of ${name} wrote no tarball`);
  tarballs.push(join(dest, tarball));
}
console.log(tarballs.join("\n"));
console.error(`\nIn your app (react is only for the hooks):\n  npm install ${tarballs.join(" ")}`);
