import { PROTOCOL_V1, PROTOCOL_V1_NESTED } from "@agentwire/protocol";
import type { FrameLog, Repositories } from "@agentwire/storage";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RawData, WebSocket } from "ws";
import { offersNoKnownVersion } from "../auth/extract-token.js";
import type { HostAllowlist } from "../auth/host-allowlist.js";
import { isOriginAllowed } from "../auth/is-origin-allowed.js";
import type { UserResolver } from "../auth/resolve-user.js";
import { authenticate } from "../http/authenticate.js";
import { SOCKET_PATH } from "../http/guard-requests.js";
import { CloseCode } from "./close-codes.js";
import type { CommandRouter } from "./command-router.js";
import { Connection, type SocketLike } from "./connection.js";
import type { ConnectionContext } from "./connection-context.js";
import type { ConnectionQuota } from "./connection-quota.js";
import type { ConnectionRegistry } from "./connection-registry.js";
import { RateLimiter } from "./rate-limiter.js";
import type { RelayTimes } from "./relay-times.js";
import type { ServerSettings } from "./server-settings.js";

export interface WsRouteOptions {
  settings: ServerSettings;
  repos: Repositories;
  registry: ConnectionRegistry;
  /** Counts the user's open sockets against maxConnectionsPerUser (across instances with Redis). */
  quota: ConnectionQuota;
  frames: FrameLog;
  relayTimes?: RelayTimes | undefined;
  router: CommandRouter;
  resolveUser: UserResolver;
  /** The Host names this server answers to; a page's own origin is trusted only under one of them. */
  hostAllowed: HostAllowlist;
  isShuttingDown: () => boolean;
}

/** A socket counted against its user's cap, from before the upgrade until it closes. */
type Admission = { upgraded: boolean; release: () => void };

/** `GET /ws`: Origin, auth and the per-user cap are checked before the upgrade; then frames are routed. */
export async function wsRoute(app: FastifyInstance, opts: WsRouteOptions) {
  const { settings, registry, router, quota } = opts;
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

  app.get(
    SOCKET_PATH,
    { websocket: true, onRequest: [refuseEarly, authenticate(opts.resolveUser)], preHandler: capConnections },
    (socket: WebSocket, request: FastifyRequest) => {
      const logger = request.log.child({ connection_id: request.id, user_id: request.userId });
      const connection = new Connection({
        id: request.id,
        userId: request.userId,
        socket: socketLike(socket),
        logger,
        sendSoftLimitBytes: limits.sendSoftLimitBytes,
        ...(limits.sendMergeThresholdBytes !== undefined && {
          sendMergeThresholdBytes: limits.sendMergeThresholdBytes,
        }),
        sendHardLimitBytes: limits.sendHardLimitBytes,
        nested: socket.protocol === PROTOCOL_V1_NESTED,
        relayTimes: opts.relayTimes,
      });
      const admission = admissions.get(request);
      if (admission) admission.upgraded = true;
      registry.add(connection);
      const abort = new AbortController();
      const ctx: ConnectionContext = {
        connectionId: connection.id,
        userId: connection.userId,
        logger,
        repos: opts.repos,
        settings,
        frames: opts.frames,
        subscriber: { id: connection.id, deliver: (frames) => connection.deliver(frames) },
        connections: registry,
        signal: abort.signal,
        send: (frame) => connection.send(frame),
      };
      const limiter = new RateLimiter(limits.messagesPerSecond, limits.messageBurst);
      let strikes = 0;
      // Once the socket is condemned, further frames are dropped unread: one log line, not one per frame.
      let closing = false;
      // Frames are handled one after another so replies keep the order of the requests.
      let queue: Promise<void> = Promise.resolve();
      logger.info("connection open");

      // Everything a frame causes goes through one queue, so replies (errors included) keep request order.
      const enqueue = (work: () => void | Promise<void>) => {
        queue = queue.then(work);
      };
      socket.on("message", (data: RawData, isBinary: boolean) => {
        if (closing) return;
        if (!limiter.tryTake()) {
          strikes += 1;
          if (strikes > limits.rateLimitStrikes) {
            closing = true;
            enqueue(() => {
              logger.warn("rate limit exceeded repeatedly; closing");
              connection.close(CloseCode.policyViolation, "rate limit exceeded");
            });
          } else {
            enqueue(() => {
              connection.send({ type: "error", code: "rate_limited", message: "too many frames; slow down" });
            });
          }
          return;
        }
        strikes = 0;
        if (isBinary) {
          enqueue(() => {
            connection.send({ type: "error", code: "bad_request", message: "frame: expected a text frame" });
          });
          return;
        }
        const text = rawToText(data);
        enqueue(() => router.dispatch(text, ctx));
      });
      socket.on("pong", () => connection.markAlive());
      socket.on("close", (code: number) => {
        registry.remove(connection);
        opts.frames.unsubscribeEverywhere(connection.id);
        connection.markClosed();
        abort.abort();
        admission?.release();
        logger.info({ code }, "connection closed");
      });
    },
  );
}

/** The `ws` socket as a connection uses it; cork and drain come from its TCP socket. */
function socketLike(ws: WebSocket): SocketLike {
  const raw = (ws as unknown as { _socket?: import("node:net").Socket })._socket;
  return {
    get readyState() {
      return ws.readyState;
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
    terminate: () => ws.terminate(),
    ping: () => ws.ping(),
    cork: () => raw?.cork(),
    uncork: () => raw?.uncork(),
    onceDrain: (listener) => raw?.once("drain", listener),
  };
}

function rawToText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}
