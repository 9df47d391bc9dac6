// Writes docs/protocol.schema.json from the zod schemas; with --check, fails when the file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { contractJsonSchema } from "../src/index.js";

const target = new URL("../../../docs/protocol.schema.json", import.meta.url);
const text = `${JSON.stringify(contractJsonSchema(), null, 2)}\n`;
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(target, "utf8");
  } catch {}
  if (current !== text) {
    console.error("docs/protocol.schema.json is stale: run `pnpm schema` and commit it");
    process.exit(1);
  }
  console.log("docs/protocol.schema.json is up to date");
} else {
  writeFileSync(target, text);
  console.log("wrote docs/protocol.schema.json");
}
