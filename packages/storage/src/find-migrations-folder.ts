import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const journal = join("meta", "_journal.json");

/**
 * A dialect's drizzle-kit migrations folder: an explicit path first, then AGENTWIRE_MIGRATIONS_DIR's
 * `sqlite/` or `postgres/`, else the dialect folder's own `migrations/` (`sqlite/migrations`), which
 * the build copies next to the compiled code: the same in src, dist and a deployed copy of the package.
 */
export function findMigrationsFolder(dialect: "sqlite" | "postgres", explicit?: string): string {
  const fromEnv = process.env.AGENTWIRE_MIGRATIONS_DIR;
  const given = explicit ?? (fromEnv ? join(fromEnv, dialect) : undefined);
  const folder = given ? resolve(given) : fileURLToPath(new URL(`./${dialect}/migrations`, import.meta.url));
  if (!existsSync(join(folder, journal)))
    throw new Error(`no drizzle migrations for ${dialect} in ${folder}; set AGENTWIRE_MIGRATIONS_DIR`);
  return folder;
}
