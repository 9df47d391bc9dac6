import { PROTOCOL_V1, PROTOCOL_V1_NESTED } from "@agentwire-chat/protocol";
import type {
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from "fastify";
import { offersNoKnownVersion } from "../auth/extract-token.js";
import type { HostAllowlist } from "../auth/host-allowlist.js";
import { isOriginAllowed } from "../auth/is-origin-allowed.js";
import type { UserResolver } from "../auth/resolve-user.js";
import { authenticate } from "../http/authenticate.js";
import type { ConnectionQuota } from "./connection-quota.js";
import type { ServerSettings } from "./server-settings.js";

export interface UpgradeCheckOptions {
  settings: ServerSettings;
  /** Counts the user's open sockets against maxConnectionsPerUser (across instances with Redis). */
  quota: ConnectionQuota;
  resolveUser: UserResolver;
  /** The Host names this server answers to; a page's own origin is trusted only under one of them. */
  hostAllowed: HostAllowlist;
  isShuttingDown: () => boolean;
}

/** A socket counted against its user's cap, from before the upgrade until it closes. */
export type Admission = { upgraded: boolean; release: () => void };

/** The hooks every upgrading route runs, and the admission each upgraded socket must give back. */
export interface UpgradeChecks {
  onRequest: [onRequestAsyncHookHandler, onRequestAsyncHookHandler];
  preHandler: preHandlerAsyncHookHandler;
  /** Marks the request's socket upgraded and returns its admission: call `release` when it closes. */
  upgraded(request: FastifyRequest): Admission | undefined;
}

/**
 * What a socket route checks before the upgrade, the same on every such path: shutdown, Origin, a
 * known subprotocol, auth (any carrier), then the per-user connection cap.
 */
export function upgradeChecks(opts: UpgradeCheckOptions): UpgradeChecks {
  const { settings, quota } = opts;
  const { limits } = settings;
  const admissions = new WeakMap<FastifyRequest, Admission>();

  const refuseEarly = async (request: FastifyRequest, reply: FastifyReply) => {
    if (opts.isShuttingDown()) return reply.code(503).send({ code: "unavailable", message: "shutting down" });
    const { origin, host } = request.headers;
    if (!isOriginAllowed(origin, settings.allowedOrigins, host, opts.hostAllowed)) {
      request.log.info({ origin: request.headers.origin }, "origin refused");
      return reply.code(403).send({ code: "forbidden", message: "origin not allowed" });
    }
    if (request.ws && offersNoKnownVersion(request.headers["sec-websocket-protocol"])) {
      return reply.code(400).send({
        code: "bad_request",
        message: `offer the subprotocol ${PROTOCOL_V1} (or ${PROTOCOL_V1_NESTED}) beside any other`,
      });
    }
  };
  // The count is taken (atomically with the check) before the upgrade, so two upgrades cannot both
  // pass the cap, and given back when the TCP socket closes, upgraded or not.
  const capConnections = async (request: FastifyRequest, reply: FastifyReply) => {
    // A plain GET (no upgrade) gets 404 and no socket: nothing to count.
    if (!request.ws) return;
    const { userId, id } = request;
    let admitted: boolean;
    try {
      admitted = await quota.acquire(userId, id, limits.maxConnectionsPerUser);
    } catch (err) {
      request.log.error({ err }, "the user's connections could not be counted");
      return reply.code(503).send({ code: "unavailable", message: "cannot accept connections now; retry" });
    }
    if (!admitted) {
      return reply.code(429).send({ code: "rate_limited", message: "too many connections for this user" });
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      quota.release(userId, id).catch((err: unknown) => {
        request.log.warn({ err }, "a closed connection could not be uncounted; it lapses");
      });
    };
    const admission: Admission = { upgraded: false, release };
    admissions.set(request, admission);
    // An upgraded socket is given back by its close handler (after the connection's cleanup).
    const raw = request.raw.socket as import("node:net").Socket | undefined;
    if (raw?.destroyed) release();
    else raw?.once("close", () => (admission.upgraded ? undefined : release()));
  };

  return {
    onRequest: [refuseEarly, authenticate(opts.resolveUser)],
    preHandler: capConnections,
    upgraded(request) {
      const admission = admissions.get(request);
      if (admission) admission.upgraded = true;
      return admission;
    },
  };
}
