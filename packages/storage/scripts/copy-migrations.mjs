// tsc emits no SQL: drizzle-kit's output lives in the repository's top-level `migrations/`, outside the
// package, so the build copies each dialect into `dist/migrations/<dialect>`, where findMigrationsFolder
// looks first. A packed or deployed package (the container image) then carries its own migrations.
import { cpSync, rmSync } from "node:fs";

const dist = new URL("../dist/", import.meta.url);
for (const dialect of ["sqlite", "postgres"]) {
  // Where builds before the top-level folder put them; a stale copy there would only mislead.
  rmSync(new URL(`${dialect}/migrations`, dist), { recursive: true, force: true });
  const to = new URL(`migrations/${dialect}`, dist);
  rmSync(to, { recursive: true, force: true });
  cpSync(new URL(`../../../migrations/${dialect}`, import.meta.url), to, { recursive: true });
}
