import { PROTOCOL_V1_NESTED } from "@agentwire-chat/protocol";
import type { FrameLog, Repositories } from "@agentwire-chat/storage";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RawData, WebSocket } from "ws";
import { SOCKET_PATH } from "../http/guard-requests.js";
import { CloseCode } from "./close-codes.js";
import type { CommandRouter } from "./command-router.js";
import { Connection } from "./connection.js";
import type { ConnectionContext } from "./connection-context.js";
import type { ConnectionRegistry } from "./connection-registry.js";
import { FrameGate } from "./frame-gate.js";
import type { RelayTimes } from "./relay-times.js";
import { type UpgradeCheckOptions, upgradeChecks } from "./upgrade-checks.js";
import { rawToText, socketLike } from "./ws-socket.js";

export interface WsRouteOptions extends UpgradeCheckOptions {
  repos: Repositories;
  registry: ConnectionRegistry;
  frames: FrameLog;
  relayTimes?: RelayTimes | undefined;
  router: CommandRouter;
}

/** `GET /ws`: Origin, auth and the per-user cap are checked before the upgrade; then frames are routed. */
export async function wsRoute(app: FastifyInstance, opts: WsRouteOptions) {
  const { settings, registry, router } = opts;
  const { limits } = settings;
  const checks = upgradeChecks(opts);

  app.get(
    SOCKET_PATH,
    { websocket: true, onRequest: checks.onRequest, preHandler: checks.preHandler },
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
      const admission = checks.upgraded(request);
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
      const gate = new FrameGate(limits);
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
        const verdict = gate.admit();
        if (verdict !== "take") {
          if (verdict === "close") {
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
