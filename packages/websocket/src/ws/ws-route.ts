import { PROTOCOL_V1_NESTED } from "@agentwire-chat/protocol";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RawData, WebSocket } from "ws";
import { SOCKET_PATH } from "../http/guard-requests.js";
import { EdgeConnection, type EdgeServer } from "./edge-connection.js";
import { type UpgradeCheckOptions, upgradeChecks } from "./upgrade-checks.js";
import { rawToText, socketLike } from "./ws-socket.js";

export type WsRouteOptions = UpgradeCheckOptions & EdgeServer;

/** `GET /ws`: Origin, auth and the per-user cap are checked before the upgrade; then frames are routed. */
export async function wsRoute(app: FastifyInstance, opts: WsRouteOptions) {
  const checks = upgradeChecks(opts);

  app.get(
    SOCKET_PATH,
    { websocket: true, onRequest: checks.onRequest, preHandler: checks.preHandler },
    (socket: WebSocket, request: FastifyRequest) => {
      const edge = new EdgeConnection(opts, {
        request,
        upgrade: checks,
        socket: socketLike(socket),
        nested: socket.protocol === PROTOCOL_V1_NESTED,
      });
      const { logger } = edge;
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
        const verdict = edge.admit();
        if (verdict !== "take") {
          if (verdict === "close") {
            closing = true;
            enqueue(() => edge.closeRateLimited());
          } else {
            enqueue(() => {
              edge.send({ type: "error", code: "rate_limited", message: "too many frames; slow down" });
            });
          }
          return;
        }
        if (isBinary) {
          enqueue(() => {
            edge.send({ type: "error", code: "bad_request", message: "frame: expected a text frame" });
          });
          return;
        }
        const text = rawToText(data);
        enqueue(() => edge.dispatch(text));
      });
      socket.on("pong", () => edge.markAlive());
      socket.on("close", (code: number) => {
        edge.closed();
        logger.info({ code }, "connection closed");
      });
    },
  );
}
