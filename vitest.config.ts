import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@agentwire/source"] },
  ssr: { resolve: { conditions: ["@agentwire/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    testTimeout: 20000,
    hookTimeout: 20000,
    pool: "forks",
  },
});
