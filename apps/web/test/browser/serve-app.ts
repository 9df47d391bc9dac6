import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { build } from "vite";

export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const DIST = join(WEB_ROOT, "dist");

/** Builds apps/web/dist from the current sources, so the tests never run a stale bundle. */
export async function buildApp(): Promise<void> {
  await build({ root: WEB_ROOT, configFile: join(WEB_ROOT, "vite.config.ts"), logLevel: "warn" });
}

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".map": "application/json",
  ".svg": "image/svg+xml",
};

/**
 * Serves the built app at the server's own origin: requests for `/` and `/assets/*` are answered
 * from apps/web/dist by the browser itself, everything else (`/api`, `/ws`) reaches the real server.
 * Same origin as production, and independent of whether the server already serves the static files.
 */
export async function serveApp(page: Page, origin: string): Promise<void> {
  await page.route(
    (url) =>
      url.origin === origin &&
      (url.pathname === "/" || url.pathname === "/index.html" || url.pathname.startsWith("/assets/")),
    async (route) => {
      const path = new URL(route.request().url()).pathname;
      const file = normalize(join(DIST, path === "/" ? "index.html" : path));
      if (!file.startsWith(DIST)) return route.fulfill({ status: 404 });
      try {
        await route.fulfill({
          body: await readFile(file),
          contentType: types[extname(file)] ?? "application/octet-stream",
        });
      } catch {
        await route.fulfill({ status: 404 });
      }
    },
  );
}
