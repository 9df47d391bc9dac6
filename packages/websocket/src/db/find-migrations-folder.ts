import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const journal = join("meta", "_journal.json");

/**
 * Finds the drizzle-kit `migrations/` folder: an explicit path or AGENTWIRE_MIGRATIONS_DIR first, then the
 * nearest `migrations/` above this module, which covers running from src (tsx), from dist, and from a
 * deployed copy inside node_modules in the container (the Dockerfile puts `migrations/` at the app root).
 * A `subfolder` (`postgres`) names another dialect's migrations inside that folder; an explicit path is
 * taken as it is, since it already names the dialect's own folder.
 */
export function findMigrationsFolder(explicit?: string, subfolder = ""): string {
  const given =
    explicit ??
    (process.env.AGENTWIRE_MIGRATIONS_DIR && join(process.env.AGENTWIRE_MIGRATIONS_DIR, subfolder));
  if (given) {
    const folder = resolve(given);
    if (!existsSync(join(folder, journal))) throw new Error(`no drizzle migrations in ${folder}`);
    return folder;
  }
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "migrations", subfolder);
    if (existsSync(join(candidate, journal))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const what = subfolder ? `migrations/${subfolder}` : "migrations";
  throw new Error(`no drizzle ${what} folder found above the server's code; set AGENTWIRE_MIGRATIONS_DIR`);
}
