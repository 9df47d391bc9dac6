// `pnpm agentwire`: runs the built CLI (fast to start). Without a build of the CLI it builds the CLI,
// and only those of its workspace packages that have no build yet: after `pnpm start` that is the CLI
// alone, so the running server's `dist/` is never rewritten under it. Quietly: one line before, one
// after, the compiler's output only when a build fails; all on stderr, since stdout is the command's.
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

if (!existsSync(new URL("../dist/main.js", import.meta.url))) {
  const { buildInOrder, buildPlan, runPackageBuild, seconds, unbuilt, workspaceDirs } = await import(
    "../../../scripts/start-build.mjs"
  );
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  const all = buildPlan(
    root,
    workspaceDirs(root, (dir) => readdirSync(dir)),
    ["@agentwire-chat/cli"],
  );
  const plan = unbuilt(
    all,
    (entry) => entry.name !== "@agentwire-chat/cli" && existsSync(`${entry.dir}/dist`),
  );
  const names = plan.map((entry) => entry.name.replace("@agentwire-chat/", "")).join(", ");
  process.stderr.write(`agentwire: no build of the CLI yet; building ${names} (once)\n`);
  const result = await buildInOrder(plan, { run: runPackageBuild, log: () => {} });
  if (!result.ok) {
    process.stderr.write(result.output);
    process.stderr.write(`agentwire: the build of ${result.failed} failed\n`);
    process.exit(1);
  }
  process.stderr.write(`agentwire: built in ${seconds(result.ms)}\n`);
}
await import("../dist/main.js");
