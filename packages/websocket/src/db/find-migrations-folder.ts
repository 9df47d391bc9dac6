import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const journal = join("meta", "_journal.json");

/**
 * Finds the drizzle-kit `migrations/` folder: an explicit path or AGENTWIRE_MIGRATIONS_DIR first, then the
 * nearest `migrations/` above this module, which covers running from src (tsx), from dist, and from a
 * deployed copy inside node_modules in the container (the Dockerfile puts `migrations/` at the app root).
 */
export function findMigrationsFolder(explicit?: string): string {
  const given = explicit ?? process.env.AGENTWIRE_MIGRATIONS_DIR;
  if (given) {
    const folder = resolve(given);
    if (!existsSync(join(folder, journal))) throw new Error(`no drizzle migrations in ${folder}`);
    return folder;
  }
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "migrations");
    if (existsSync(join(candidate, journal))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error("no drizzle migrations folder found above the server's code; set AGENTWIRE_MIGRATIONS_DIR");
}
