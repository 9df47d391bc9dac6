import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";

/**
 * The built web client's folder: WEB_DIST_DIR, else `apps/web/dist` found above this file (from
 * source, from the build, and in the container alike); undefined when it was not built.
 */
export function findWebDist(env: Record<string, string | undefined> = process.env): string | undefined {
  if (env.WEB_DIST_DIR)
    return existsSync(join(env.WEB_DIST_DIR, "index.html")) ? env.WEB_DIST_DIR : undefined;
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, "apps/web/dist");
    if (existsSync(join(candidate, "index.html"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Serves the web client at `/` (static files only; its routes live in the URL hash). Its security
 * headers (CSP, no framing, nosniff, no referrer) come from securityHeaders on the whole app.
 */
export async function serveWebApp(app: FastifyInstance, root: string): Promise<void> {
  await app.register(fastifyStatic, {
    root,
    prefix: "/",
    index: ["index.html"],
    // The page's own assets only: no directory listings, no dotfiles.
    list: false,
    dotfiles: "deny",
  });
}
