// `pnpm bench <name>`: runs bench/src/<name>.ts, which writes bench/results/<name>.json.
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
const run = spawnSync(
  process.execPath,
  [
    "--expose-gc",
    "--import",
    "tsx",
    "--conditions=@agentwire/source",
    `bench/src/${name}.ts`,
    ...process.argv.slice(3),
  ],
  { stdio: "inherit" },
);
process.exit(run.status ?? 1);
