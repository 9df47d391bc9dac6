import helmet from "@fastify/helmet";
import type { FastifyInstance } from "fastify";
import { CONTENT_SECURITY_POLICY } from "./content-security-policy.js";

/**
 * Security headers on every response of `app` (web client, API, health, metrics): the strict CSP,
 * `X-Frame-Options: DENY` for browsers without frame-ancestors, nosniff, no referrer, and helmet's
 * cross-origin isolation headers. Call it with the root app (not through register, which would
 * encapsulate them), so every route gets them.
 */
export async function securityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      // helmet's defaults would add `upgrade-insecure-requests` (which breaks ws:// on a plain-HTTP
      // LAN address) and https: sources; the policy is stated whole instead.
      useDefaults: false,
      directives: Object.fromEntries(
        Object.entries(CONTENT_SECURITY_POLICY).map(([directive, sources]) => [directive, [...sources]]),
      ),
    },
    xFrameOptions: { action: "deny" },
    // The server speaks plain HTTP; whether a host is HTTPS-only is for the TLS terminator to say.
    strictTransportSecurity: false,
  });
}
