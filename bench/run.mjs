// `pnpm bench <name>`: builds the packages (turbo: cached when nothing changed), then runs
// bench/src/<name>.ts, which writes bench/results/<name>.json. The packages are measured as built (their
// `dist`, what the server runs), not through tsx: tsx compiles with esbuild's keepNames, which wraps
// every function and closure it creates in a `__name()` call (an Object.defineProperty each time), about
// 6 % of the loop's time that the built server never pays. Only the bench's own files go through tsx.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

const name = process.argv[2];
const available = readdirSync(new URL("./src", import.meta.url))
  .filter((f) => f.endsWith(".ts") && !f.startsWith("_"))
  .map((f) => f.slice(0, -3));
if (!name || !existsSync(new URL(`./src/${name}.ts`, import.meta.url))) {
  console.error(`usage: pnpm bench <${available.join("|")}>`);
  process.exit(2);
}
const build = spawnSync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], { stdio: "inherit" });
if (build.status !== 0) {
  console.error("bench: the build failed; nothing was measured");
  process.exit(build.status ?? 1);
}
const run = spawnSync(
  process.execPath,
  ["--expose-gc", "--import", "tsx", `bench/src/${name}.ts`, ...process.argv.slice(3)],
  { stdio: "inherit" },
);
process.exit(run.status ?? 1);
