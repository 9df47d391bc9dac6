import { defineConfig } from "drizzle-kit";

// `pnpm db:generate` writes SQL migrations from the schema to the top-level migrations/sqlite; the
// storage build copies them into its dist, and the server applies them at start-up.
export default defineConfig({
  dialect: "sqlite",
  schema: "./packages/storage/src/sqlite/schema/index.ts",
  out: "./migrations/sqlite",
});
