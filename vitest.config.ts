import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@agentwire-chat/source"] },
  ssr: { resolve: { conditions: ["@agentwire-chat/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    testTimeout: 20000,
    hookTimeout: 20000,
    pool: "forks",
    // One module graph per worker, not per file: a fresh graph per file cost ~0.5 s of CPU each
    // (173 s of 623 for the SQLite half on 2 cores). Test files therefore restore any global they
    // touch (timers, env, spies) before they end.
    isolate: false,
    // Most files wait on sockets, child processes and databases: three workers keep two cores busy.
    maxWorkers: 3,
    globalSetup: ["./vitest.global-setup.ts"],
  },
});
