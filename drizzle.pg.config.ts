import { defineConfig } from "drizzle-kit";

// `pnpm db:generate:pg` writes the Postgres migrations; the SQLite ones stay in ./migrations (drizzle.config.ts).
export default defineConfig({
  dialect: "postgresql",
  schema: "./packages/websocket/src/db/pg-schema/index.ts",
  out: "./migrations/postgres",
});
