// `pnpm start`: runs the built server, building first when no build exists.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync(new URL("../apps/server/dist/main.js", import.meta.url))) {
  const built = spawnSync("pnpm", ["run", "build"], {
    stdio: "inherit",
    shell: process.platform === "win32",
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
await import("../apps/server/dist/main.js");
