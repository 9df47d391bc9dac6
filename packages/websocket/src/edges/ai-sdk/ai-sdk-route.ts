import { findTooDeep, MAX_JSON_DEPTH } from "@agentwire-chat/protocol";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RawData, WebSocket } from "ws";
import { AI_SDK_SOCKET_PATH } from "../../http/guard-requests.js";
import { CloseCode } from "../../ws/close-codes.js";
import { EdgeConnection } from "../../ws/edge-connection.js";
import { upgradeChecks } from "../../ws/upgrade-checks.js";
import type { WsRouteOptions } from "../../ws/ws-route.js";
import { rawToText, socketLike } from "../../ws/ws-socket.js";
import { AiSdkSession } from "./ai-sdk-session.js";
import { requestIdOf, TransportRequest } from "./transport-request.js";
import type { TransportResponse } from "./ui-chunks.js";

/** The same as `/ws`'s: the socket passes the same checks and reaches the same router. */
export type AiSdkRouteOptions = WsRouteOptions;

/**
 * `GET /ws/ai-sdk`: the AI SDK's `WebSocketChatTransport` protocol over an edge connection, with the
 * same checks before the upgrade as `/ws` (Origin, subprotocol, auth, the per-user cap) and the same
 * frame rate limit after it.
 */
export async function aiSdkRoute(app: FastifyInstance, opts: AiSdkRouteOptions) {
  const checks = upgradeChecks(opts);
  app.get(
    AI_SDK_SOCKET_PATH,
    { websocket: true, onRequest: checks.onRequest, preHandler: checks.preHandler },
    (socket: WebSocket, request: FastifyRequest) => {
      const { send: _send, ...transport } = socketLike(socket);
      const write = (response: TransportResponse) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(response));
      };
      let session: AiSdkSession | undefined;
      const edge = new EdgeConnection(opts, {
        request,
        edge: "ai-sdk",
        upgrade: checks,
        transport,
        onFrame: (frame) => session?.onFrame(frame),
      });
      const { logger } = edge;
      session = new AiSdkSession({ edge, repos: opts.repos, send: write });
      const current = session;
      // Requests are handled one after another, so their answers keep the order they were sent in.
      let queue: Promise<void> = Promise.resolve();
      logger.info("connection open");

      socket.on("message", (data: RawData, isBinary: boolean) => {
        const verdict = edge.admit();
        if (verdict === "close") {
          edge.closeRateLimited();
          return;
        }
        const value = isBinary ? undefined : parseJson(rawToText(data));
        const requestId = requestIdOf(value);
        if (verdict === "refuse") {
          if (requestId !== undefined)
            write({ type: "error", requestId, errorText: "rate_limited: too many frames; slow down" });
          return;
        }
        const tooDeep = findTooDeep(value, "frame");
        const parsed = TransportRequest.safeParse(tooDeep === undefined ? value : undefined);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const errorText =
            tooDeep !== undefined
              ? `bad_request: ${tooDeep}: nested deeper than ${MAX_JSON_DEPTH} levels`
              : `bad_request: ${issue?.path.join(".") || "frame"}: ${issue?.message ?? "invalid frame"}`;
          // Without a requestId there is no stream to answer on: the transport's own rule is to close.
          if (requestId !== undefined) write({ type: "error", requestId, errorText });
          else socket.close(CloseCode.policyViolation, "invalid frame");
          return;
        }
        queue = queue.then(() => current.handle(parsed.data));
      });
      socket.on("pong", () => edge.markAlive());
      socket.on("close", (code: number) => {
        edge.closed();
        logger.info({ code }, "connection closed");
      });
    },
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
