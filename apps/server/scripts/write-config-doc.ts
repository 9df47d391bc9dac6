// Writes docs/configuration.md from the server's EnvSchema; with --check, fails when the file is stale.
// `--file PATH` names another file (the tests check a stale and a fresh copy without touching docs/).
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { renderConfigMarkdown } from "../src/config-reference.js";

const { values } = parseArgs({ options: { check: { type: "boolean" }, file: { type: "string" } } });
const target = values.file ?? new URL("../../../docs/configuration.md", import.meta.url);
const shown = values.file ?? "docs/configuration.md";
const text = renderConfigMarkdown();
if (values.check) {
  let current = "";
  try {
    current = readFileSync(target, "utf8");
  } catch {}
  if (current !== text) {
    console.error(
      `${shown} is stale (it differs from what EnvSchema renders): run \`pnpm config:doc\` and commit it`,
    );
    process.exit(1);
  }
  console.log(`${shown} is up to date`);
} else {
  writeFileSync(target, text);
  console.log(`wrote ${shown}`);
}
