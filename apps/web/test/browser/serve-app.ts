import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { build } from "vite";
import { contentSecurityPolicyHeader } from "../../../server/src/content-security-policy.js";

export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const DIST = join(WEB_ROOT, "dist");

/**
 * Builds the app from the current sources, so the tests never run a stale bundle: into apps/web/dist,
 * or into `outDir` (a test that serves it from the real server builds its own copy, so that
 * test files running at once never read a folder another is emptying).
 */
export async function buildApp(outDir = DIST): Promise<void> {
  await build({
    root: WEB_ROOT,
    configFile: join(WEB_ROOT, "vite.config.ts"),
    logLevel: "warn",
    build: { outDir, emptyOutDir: true },
  });
}

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
};

/**
 * Serves the built app at the server's own origin: requests for `/`, `/favicon.*` and `/assets/*` are answered
 * from apps/web/dist (or `dist`, a test file's own build) by the browser itself, everything else
 * (`/api`, `/ws`) reaches the real server.
 * Same origin as production, and independent of whether the server already serves the static files.
 * The page gets the server's own Content-Security-Policy, so every browser test runs under it.
 */
export async function serveApp(page: Page, origin: string, dist = DIST): Promise<void> {
  await page.route(
    (url) =>
      url.origin === origin &&
      (url.pathname === "/" ||
        url.pathname === "/index.html" ||
        url.pathname.startsWith("/favicon.") ||
        url.pathname.startsWith("/assets/")),
    async (route) => {
      const path = new URL(route.request().url()).pathname;
      const file = normalize(join(dist, path === "/" ? "index.html" : path));
      if (!file.startsWith(dist)) return route.fulfill({ status: 404 });
      try {
        await route.fulfill({
          body: await readFile(file),
          contentType: types[extname(file)] ?? "application/octet-stream",
          headers: { "content-security-policy": contentSecurityPolicyHeader(), "x-frame-options": "DENY" },
        });
      } catch {
        await route.fulfill({ status: 404 });
      }
    },
  );
}
