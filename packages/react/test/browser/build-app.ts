import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import type { Page } from "playwright-core";

const PACKAGE = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Bundles a test page for the browser into `dir` (index.html, app.js) from the current sources,
 * against React 19 (`react`) or 18 (`react-18`, installed under that alias); `entry` is the page's
 * module in this folder. `modules` are TSX sources the page imports by name (`virtual:NAME`), built
 * as if they sat in this folder: code taken from a document, run as written.
 */
export async function buildChatApp(
  dir: string,
  react: "18" | "19",
  entry = "chat-app.ts",
  modules: Record<string, string> = {},
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const virtual: Plugin = {
    name: "virtual-modules",
    setup(b) {
      b.onResolve({ filter: /^virtual:/ }, (args) => ({ path: args.path, namespace: "virtual" }));
      b.onLoad({ filter: /.*/, namespace: "virtual" }, (args) => {
        const contents = modules[args.path.slice("virtual:".length)];
        if (contents === undefined) return { errors: [{ text: `no module ${args.path}` }] };
        return { contents, loader: "tsx", resolveDir: join(PACKAGE, "test/browser") };
      });
    },
  };
  await build({
    entryPoints: [join(PACKAGE, "test/browser", entry)],
    plugins: [virtual],
    jsx: "automatic",
    outfile: join(dir, "app.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@agentwire-chat/source"],
    // Alias targets resolve from the working directory: the package's own node_modules.
    absWorkingDir: PACKAGE,
    ...(react === "18" && { alias: { react: "react-18", "react-dom": "react-dom-18" } }),
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "warning",
  });
  writeFileSync(
    join(dir, "index.html"),
    '<!doctype html><html><head><meta charset="utf-8"><title>useChat</title></head><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>',
  );
}

/** Serves the page bundled in `dir` at `origin` (`/` and `/app.js`); everything else reaches the real server. */
export async function serveApp(page: Page, origin: string, dir: string): Promise<void> {
  await page.route(
    (url) => url.origin === origin && (url.pathname === "/" || url.pathname === "/app.js"),
    async (route) => {
      const isApp = new URL(route.request().url()).pathname === "/app.js";
      await route.fulfill({
        body: readFileSync(join(dir, isApp ? "app.js" : "index.html")),
        contentType: isApp ? "text/javascript" : "text/html; charset=utf-8",
      });
    },
  );
}
