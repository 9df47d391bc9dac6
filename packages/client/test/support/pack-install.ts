import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const PACK_CLIENTS = fileURLToPath(new URL("../../../../scripts/pack-clients.mjs", import.meta.url));

/** `node scripts/pack-clients.mjs dest`, as docs/clients.md tells an app developer: the tarballs' paths. */
export async function packClients(
  dest: string,
): Promise<{ protocol: string; client: string; react: string }> {
  const { stdout } = await run(process.execPath, [PACK_CLIENTS, dest], { maxBuffer: 16 * 1024 * 1024 });
  const [protocol, client, react] = stdout.trim().split("\n");
  if (!protocol || !client || !react) throw new Error(`pack-clients printed ${stdout}`);
  return { protocol, client, react };
}

/**
 * A fresh npm project in `dir`, then one `npm install` of the tarballs and `extra` (from the registry
 * or npm's cache), as docs/clients.md says: no overrides, the client's protocol is the tarball beside it.
 */
export async function npmInstall(dir: string, tarballs: string[], extra: string[]) {
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "packed-app", private: true, type: "module" }),
  );
  await run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs, ...extra],
    {
      cwd: dir,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}
