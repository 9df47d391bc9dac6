import { defineConfig } from "drizzle-kit";

// `pnpm db:generate` writes SQL migrations from the schema; the server applies them at start-up.
export default defineConfig({
  dialect: "sqlite",
  schema: "./packages/websocket/src/db/schema/index.ts",
  out: "./migrations",
});
