import type { FastifyReply, FastifyRequest } from "fastify";
import type { HostAllowlist } from "../auth/host-allowlist.js";

/** The native protocol's WebSocket path; a query string (`?api_key=`) may follow it. */
export const SOCKET_PATH = "/ws";
/** The AI SDK's `WebSocketChatTransport` protocol, served as a projection of the native one (docs/ai-sdk.md). */
export const AI_SDK_SOCKET_PATH = "/ws/ai-sdk";
/** The only paths that upgrade. */
const UPGRADE_PATHS = new Set([SOCKET_PATH, AI_SDK_SOCKET_PATH]);

// Probes come from orchestrators under whatever Host they use, and answer nothing worth rebinding for.
const HOST_EXEMPT_PATHS = new Set(["/health", "/ready"]);

export interface RequestGuardOptions {
  hostAllowed: HostAllowlist;
  /** False with tokens and no ALLOWED_HOSTS: the server answers to any name. */
  enforceHost: boolean;
}

/**
 * Runs first on every request, upgrades included, before any handshake: an upgrade anywhere but
 * exactly `/ws` or `/ws/ai-sdk` is 404 (the router would match `/WS`, `/ws/` or the web app's wildcard
 * and upgrade there), and a Host this server does not answer to is 403.
 */
export function guardRequests(opts: RequestGuardOptions) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.raw.url ?? "";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (request.ws && !UPGRADE_PATHS.has(path)) {
      return reply.code(404).send({ code: "not_found", message: "no WebSocket at this path; use /ws" });
    }
    if (opts.enforceHost && !HOST_EXEMPT_PATHS.has(path) && !opts.hostAllowed(request.headers.host)) {
      request.log.info({ host: request.headers.host?.slice(0, 100) }, "host refused");
      return reply.code(403).send({ code: "forbidden", message: "host not allowed; see ALLOWED_HOSTS" });
    }
  };
}
