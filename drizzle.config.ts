import { defineConfig } from "drizzle-kit";

// `pnpm db:generate` writes SQL migrations from the schema; the server applies them at start-up.
export default defineConfig({
  dialect: "sqlite",
  schema: "./packages/storage/src/sqlite/schema/index.ts",
  out: "./packages/storage/src/sqlite/migrations",
});
