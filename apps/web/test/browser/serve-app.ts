import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { testRunDir } from "@agentwire-chat/testkit/test-run-dir";
import { until } from "@agentwire-chat/testkit/until";
import type { Page } from "playwright-core";
import { build } from "vite";
import { contentSecurityPolicyHeader } from "../../../server/src/content-security-policy.js";

export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
/** The run's one build of the app (built by the first test file that asks, in any worker). */
const DIST = join(testRunDir(), "web-dist");

let built: Promise<void> | undefined;

/**
 * Builds the app from the current sources once per test run, so the tests never run a stale bundle
 * and two dozen files do not each pay a vite build (or empty a folder another file is reading); with
 * `outDir`, copies that build there (a test that serves it from the real server gets its own copy).
 * Returns the folder the app is in.
 */
export async function buildApp(outDir?: string): Promise<string> {
  built ??= buildOnce();
  await built;
  if (outDir === undefined) return DIST;
  mkdirSync(outDir, { recursive: true });
  cpSync(DIST, outDir, { recursive: true });
  return outDir;
}

/** The first caller of the run (across workers: an atomic mkdir decides) builds; the others wait for its mark. */
async function buildOnce(): Promise<void> {
  const done = `${DIST}.done`;
  const failed = `${DIST}.failed`;
  let builder = false;
  try {
    mkdirSync(`${DIST}.lock`);
    builder = true;
  } catch {
    // Another file of the run is building it.
  }
  if (builder) {
    try {
      await build({
        root: WEB_ROOT,
        configFile: join(WEB_ROOT, "vite.config.ts"),
        logLevel: "warn",
        build: { outDir: DIST, emptyOutDir: true },
      });
      writeFileSync(done, "");
    } catch (error) {
      writeFileSync(failed, String(error));
      throw error;
    }
    return;
  }
  await until(
    () => {
      if (existsSync(failed)) throw new Error(`the web app's build failed: ${readFileSync(failed, "utf8")}`);
      return existsSync(done);
    },
    "the run's build of the web app",
    { timeoutMs: 120_000, everyMs: 50 },
  );
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
 * from the run's build of the app (or `dist`, a test file's own copy) by the browser itself, everything else
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
