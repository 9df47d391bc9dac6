// `pnpm start`: runs the built server, building first when no build exists.
//
// package.json runs this file with `exec`, so pnpm's child is this node process rather than a shell.
// On Ctrl-C the terminal sends SIGINT to its whole foreground group: a `sh -c` in between would die
// of it and pnpm would report `ELIFECYCLE Command failed`, however cleanly the server stopped. (pnpm
// also forwards its own SIGINT, so the server sees one Ctrl-C twice: installSignalHandlers allows for it.)
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

if (!existsSync(new URL("../apps/server/dist/main.js", import.meta.url))) {
  // Imported only here: a build is needed once, and the copies of this file some tests run have none.
  const { buildInOrder, buildPlan, runPackageBuild, seconds, workspaceDirs } = await import(
    "./start-build.mjs"
  );
  const root = fileURLToPath(new URL("..", import.meta.url));
  const plan = buildPlan(
    root,
    workspaceDirs(root, (dir) => readdirSync(dir)),
  );
  console.log(
    `agentwire: no build yet; building the ${plan.length} packages the server needs (once, about a minute)`,
  );
  const result = await buildInOrder(plan, { run: runPackageBuild, log: (line) => console.log(line) });
  if (!result.ok) {
    process.stderr.write(result.output);
    console.error(`agentwire: the build of ${result.failed} failed`);
    process.exit(1);
  }
  console.log(`agentwire: built ${plan.length} packages in ${seconds(result.ms)}; starting the server`);
}
await import("../apps/server/dist/main.js");
