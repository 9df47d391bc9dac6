import { defaultClientConditions, defineConfig } from "vite";

/** Static build for the server to serve at `/`; relative asset paths so any mount point works. */
export default defineConfig({
  base: "./",
  // `@agentwire-chat/source`: use the workspace packages' TypeScript directly, as the rest of the repo does.
  resolve: { conditions: ["@agentwire-chat/source", ...defaultClientConditions] },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: true },
  server: {
    // `pnpm --filter @agentwire-chat/web dev` against a server running on the default port.
    proxy: {
      "/api": "http://127.0.0.1:8787",
      "/ws": { target: "ws://127.0.0.1:8787", ws: true },
    },
  },
});
