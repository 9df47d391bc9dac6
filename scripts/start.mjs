// `pnpm start`: runs the built server, building first when no build exists.
//
// package.json runs this file with `exec`, so pnpm's child is this node process rather than a shell.
// On Ctrl-C the terminal sends SIGINT to its whole foreground group: a `sh -c` in between would die
// of it and pnpm would report `ELIFECYCLE Command failed`, however cleanly the server stopped. (pnpm
// also forwards its own SIGINT, so the server sees one Ctrl-C twice: installSignalHandlers allows for it.)
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync(new URL("../apps/server/dist/main.js", import.meta.url))) {
  const started = Date.now();
  console.log("agentwire: no build yet; building every package first (once, about a minute)");
  // The pnpm that runs this script, when there is one; else whichever is on PATH.
  const execpath = process.env.npm_execpath;
  const [cmd, ...pre] = execpath && /pnpm\.c?js$/.test(execpath) ? [process.execPath, execpath] : ["pnpm"];
  const built = spawnSync(cmd, [...pre, "run", "build", "--output-logs=errors-only"], {
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
    shell: process.platform === "win32",
  });
  if (built.status !== 0) {
    process.stdout.write(built.stdout ?? "");
    process.stderr.write(built.stderr ?? "");
    console.error(`agentwire: the build failed${built.error ? ` (${built.error.message})` : ""}`);
    process.exit(built.status ?? 1);
  }
  console.log(`agentwire: built in ${Math.round((Date.now() - started) / 1000)} s`);
}
await import("../apps/server/dist/main.js");
