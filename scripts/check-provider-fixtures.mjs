#!/usr/bin/env node
// Compares the shared research bundle's provider recordings (<repo>/../shared/fixtures/providers, on dev
// machines only) with the checksums of the copies vendored in packages/agents/test/providers/fixtures.
// Fails loudly when the bundle is absent: run it where the bundle is, after refreshing the copies.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const bundle = process.argv[2] ?? `${root}../shared/fixtures/providers/`;
const manifestPath = `${root}packages/agents/test/providers/fixtures.sha256`;

if (!existsSync(bundle)) {
  console.error(
    `check-provider-fixtures: the shared bundle is not at ${bundle} (pass its path as the argument)`,
  );
  process.exit(1);
}
const manifest = new Map(
  readFileSync(manifestPath, "utf8")
    .trim()
    .split("\n")
    .map((line) => line.split(/\s+/).reverse()),
);
const sha256 = (path) => createHash("sha256").update(readFileSync(path)).digest("hex");
const recordings = readdirSync(bundle).filter((f) =>
  /^(openai_chat_|openai_responses_|anthropic_).*\.(sse|txt)$/.test(f),
);
// Recordings converted in this repo from a public source (their header says so) have no bundle original.
const vendoredDir = `${root}packages/agents/test/providers/fixtures/`;
const convertedHere = (f) => readFileSync(`${vendoredDir}${f}`, "utf8").includes("done for agentwire");
const problems = [
  ...recordings.filter((f) => !manifest.has(f)).map((f) => `${f}: in the bundle, not vendored`),
  ...[...manifest.keys()]
    .filter((f) => !recordings.includes(f) && !convertedHere(f))
    .map((f) => `${f}: vendored, not in the bundle`),
  ...recordings
    .filter((f) => manifest.has(f) && sha256(`${bundle}${f}`) !== manifest.get(f))
    .map((f) => `${f}: differs from the vendored copy's checksum`),
];
if (problems.length > 0) {
  console.error(`check-provider-fixtures: ${problems.length} difference(s)\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`check-provider-fixtures: ${recordings.length} recordings match the vendored copies`);
