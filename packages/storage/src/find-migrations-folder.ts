import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const journal = join("meta", "_journal.json");

// drizzle-kit writes the SQL to the repository's top-level `migrations/<dialect>`; the build copies
// that into the package's `dist/migrations/<dialect>`, beside this module once compiled. So a built or
// deployed package finds its own copy first, and the source (src/, three levels under the root) the
// top-level folder.
const defaultFolders = (dialect: string) => [
  new URL(`./migrations/${dialect}`, import.meta.url),
  new URL(`../../../migrations/${dialect}`, import.meta.url),
];

/**
 * A dialect's drizzle-kit migrations folder: an explicit path first, then AGENTWIRE_MIGRATIONS_DIR's
 * `sqlite/` or `postgres/`, else the package's copy in `dist/migrations/`, else the repository's
 * top-level `migrations/` (running from source).
 */
export function findMigrationsFolder(dialect: "sqlite" | "postgres", explicit?: string): string {
  const fromEnv = process.env.AGENTWIRE_MIGRATIONS_DIR;
  const given = explicit ?? (fromEnv ? join(fromEnv, dialect) : undefined);
  const candidates = given ? [resolve(given)] : defaultFolders(dialect).map((url) => fileURLToPath(url));
  const folder = candidates.find((candidate) => existsSync(join(candidate, journal)));
  if (!folder)
    throw new Error(
      `no drizzle migrations for ${dialect} in ${candidates.join(" or ")}; set AGENTWIRE_MIGRATIONS_DIR`,
    );
  return folder;
}
