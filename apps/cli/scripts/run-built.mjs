// `pnpm agentwire`: runs the built CLI (fast to start), building it and the packages it uses first
// when there is no build. Build output goes to stderr: stdout is the command's own (a new token).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const needed = ["../dist/main.js", "../../../packages/websocket/dist/index.js"];
if (!needed.every((path) => existsSync(new URL(path, import.meta.url)))) {
  process.stderr.write("agentwire: no build of the CLI yet, building it first (once)\n");
  const turbo = new URL("../../../node_modules/.bin/turbo", import.meta.url);
  const built = spawnSync(turbo.pathname, ["run", "build", "--filter=@agentwire-chat/cli..."], {
    stdio: ["ignore", 2, 2],
    shell: process.platform === "win32",
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
await import("../dist/main.js");
