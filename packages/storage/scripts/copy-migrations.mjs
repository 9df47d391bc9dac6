// tsc emits no SQL: each dialect's migrations go beside its compiled code, where openDatabase and
// openPostgres look for them (`./migrations` next to the module, in src and in dist alike).
import { cpSync, rmSync } from "node:fs";

for (const dialect of ["sqlite", "postgres"]) {
  const to = new URL(`../dist/${dialect}/migrations`, import.meta.url);
  rmSync(to, { recursive: true, force: true });
  cpSync(new URL(`../src/${dialect}/migrations`, import.meta.url), to, { recursive: true });
}
