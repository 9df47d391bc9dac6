// Prints the SDK's size as an app bundles it (minified, gzipped) and fails over the budget.
// `node packages/client/scripts/size.mjs [--json]`; also checked by test/size.test.ts.

import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

/** The budget from issue 26: the whole SDK, tree reducer included, min+gzip. */
export const BUDGET_BYTES = 12 * 1024;

/** Bundles `src/index.ts` for a browser (workspace sources, zod-free protocol subpaths) and measures it. */
export async function measure() {
  const result = await build({
    absWorkingDir: fileURLToPath(new URL("..", import.meta.url)),
    entryPoints: ["src/index.ts"],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@agentwire-chat/source"],
    write: false,
    metafile: true,
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.keys(result.metafile.inputs);
  return {
    minBytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    budgetBytes: BUDGET_BYTES,
    zod: inputs.some((i) => i.includes("/zod/")),
    inputs,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const m = await measure();
  if (process.argv.includes("--json")) console.log(JSON.stringify(m, null, 2));
  else
    console.log(
      `@agentwire-chat/client: ${m.minBytes} B min, ${m.gzipBytes} B min+gzip (budget ${m.budgetBytes} B)${m.zod ? ", zod bundled!" : ""}`,
    );
  if (m.gzipBytes > m.budgetBytes || m.zod) process.exit(1);
}
