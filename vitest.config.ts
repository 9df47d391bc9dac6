import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@agentwire-chat/source"] },
  ssr: { resolve: { conditions: ["@agentwire-chat/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    testTimeout: 20000,
    hookTimeout: 20000,
    pool: "forks",
  },
});
