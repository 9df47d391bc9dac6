import { defineConfig } from "vitest/config";

const source = {
  resolve: { conditions: ["@agentwire-chat/source"] },
  ssr: { resolve: { conditions: ["@agentwire-chat/source"] } },
};
const shared = {
  testTimeout: 20000,
  hookTimeout: 20000,
  pool: "forks" as const,
  // One module graph per worker, not per file: a fresh graph per file cost ~0.5 s of CPU each
  // (173 s of the SQLite run's 623 on 2 cores). Test files therefore restore any global they touch
  // (timers, env, spies) before they end.
  isolate: false,
};

/**
 * Two projects in one run, so their files share the workers and neither waits for the other's tail:
 * `sqlite`, every test; `postgres`, the server suite again with every harness server on Postgres
 * (AGENTWIRE_TEST_DB=postgres; one throwaway Postgres for the run, a database per server). Left out
 * of `postgres`: tests of SQLite itself (its frame log, its migrations, kill -9 inside its commit),
 * tests that start their own Postgres already, and tests that touch no database.
 */
export default defineConfig({
  test: {
    // Most files wait on sockets, child processes and databases: three workers keep two cores busy.
    maxWorkers: 3,
    projects: [
      {
        ...source,
        test: {
          ...shared,
          name: "sqlite",
          include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
          globalSetup: ["./vitest.global-setup.ts"],
        },
      },
      {
        ...source,
        test: {
          ...shared,
          name: "postgres",
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
            // Held sockets and header timeouts: no database in it. The frame fuzzer's 10,000 hostile
            // frames are all refused at validation, before any storage call on either dialect (its "no
            // row stored" holds in the sqlite run): 26 s of workers' time here, for nothing a second
            // dialect could change.
            "packages/websocket/test/attacks/slowloris.test.ts",
            "packages/websocket/test/attacks/fuzz-frames.test.ts",
          ],
          env: { AGENTWIRE_TEST_DB: "postgres" },
          globalSetup: ["./vitest.global-setup.ts", "./vitest.pg-setup.ts"],
        },
      },
    ],
  },
});
