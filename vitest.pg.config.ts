import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * The server suite again, every harness server on Postgres (AGENTWIRE_TEST_DB=postgres; one throwaway
 * Postgres for the run, a database per server). Left out: tests of SQLite itself (its frame log, its
 * migrations, kill -9 inside its commit), tests that start their own Postgres already, and tests that
 * touch no database.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // Replaces the base lists (mergeConfig would append to them).
    // Of the cluster's tests, the sweep and the command bus serve over a database; the others touch none.
    include: [
      "packages/websocket/test/**/*.test.ts",
      "packages/cluster/test/dead-turn-sweep.test.ts",
      "packages/cluster/test/command-bus.test.ts",
    ],
    exclude: [
      "**/node_modules/**",
      "packages/websocket/test/turns/frame-log*.test.ts",
      "packages/websocket/test/migrations.test.ts",
      "packages/websocket/test/chat/crash-recovery.test.ts",
      "packages/websocket/test/chat/kill-at-points.test.ts",
      "packages/websocket/test/cluster/**",
      // Held sockets and header timeouts: no database in it.
      "packages/websocket/test/attacks/slowloris.test.ts",
    ],
    env: { AGENTWIRE_TEST_DB: "postgres" },
    globalSetup: ["./vitest.global-setup.ts", "./vitest.pg-setup.ts"],
  },
});
