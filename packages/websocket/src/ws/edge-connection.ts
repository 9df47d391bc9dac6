import type { ClientFrame, ErrorFrame, ServerFrame } from "@agentwire-chat/protocol";
import type { FrameLog, Repositories } from "@agentwire-chat/storage";
import type { FastifyBaseLogger } from "fastify";
import { CloseCode } from "./close-codes.js";
import type { CommandRouter } from "./command-router.js";
import { Connection, type SocketLike } from "./connection.js";
import type { ConnectionContext } from "./connection-context.js";
import type { ConnectionRegistry } from "./connection-registry.js";
import { FrameGate, type FrameVerdict } from "./frame-gate.js";
import type { RelayTimes } from "./relay-times.js";
import type { ServerSettings } from "./server-settings.js";

/** What every edge shares with `/ws`: the server's settings, storage, open connections and command router. */
export interface EdgeServer {
  settings: ServerSettings;
  repos: Repositories;
  frames: FrameLog;
  registry: ConnectionRegistry;
  router: CommandRouter;
  relayTimes?: RelayTimes | undefined;
}

/**
 * The edge's own transport (a WebSocket, an HTTP response) as the native connection sees it: its
 * buffer, close and liveness. Not `send`: what is written to it is the edge's projection. Without
 * `ping` (a transport with no pong) the connection counts as alive until the transport closes.
 */
export type EdgeTransport = Omit<SocketLike, "send" | "ping"> & { ping?(): void };

export interface EdgeConnectionOptions {
  id: string;
  userId: string;
  /** Carries connection_id and user_id. */
  logger: FastifyBaseLogger;
  transport: EdgeTransport;
  /**
   * Each frame a nested `/ws` socket would get, parsed, in its order: replies and the frames of every
   * thread this connection watches (a turn it started or resumed). Errors answering a `command` are
   * that call's result instead.
   */
  onFrame(frame: ServerFrame): void;
}

/**
 * An in-process client of the native command router, for a protocol served beside `/ws` (the AI SDK's
 * socket, AG-UI's SSE). Commands go through the same router and handlers as a socket's, under the
 * same user, so auth scoping, limits, busy rules and durability hold unchanged; the frames a native
 * socket would get (nested text included) are handed to `onFrame` to be projected, and the native
 * connection's backpressure applies to the edge's transport. There is no second turn lifecycle.
 */
export class EdgeConnection {
  readonly id: string;
  readonly userId: string;
  readonly logger: FastifyBaseLogger;
  private readonly connection: Connection;
  private readonly context: ConnectionContext;
  private readonly server: EdgeServer;
  private readonly gate: FrameGate;
  private readonly abort = new AbortController();
  private queue: Promise<unknown> = Promise.resolve();
  private requests = 0;
  /** The request_id of the command being handled, and the error that answered it. */
  private current: { requestId: string; error?: ErrorFrame } | undefined;

  constructor(server: EdgeServer, options: EdgeConnectionOptions) {
    const { limits } = server.settings;
    this.id = options.id;
    this.userId = options.userId;
    this.logger = options.logger;
    this.server = server;
    this.gate = new FrameGate(limits);
    const onFrame = options.onFrame;
    const transport = options.transport;
    // The native connection writes JSON; the edge reads it back as frames (committed frames arrive as
    // their logged JSON, so parsing here is the one cost of a projection).
    const socket: SocketLike = {
      get readyState() {
        return transport.readyState;
      },
      get bufferedAmount() {
        return transport.bufferedAmount;
      },
      send: (json) => onFrame(JSON.parse(json) as ServerFrame),
      close: (code, reason) => transport.close(code, reason),
      terminate: () => transport.terminate(),
      ping: () => (transport.ping ? transport.ping() : this.connection.markAlive()),
      ...(transport.cork && { cork: () => transport.cork?.() }),
      ...(transport.uncork && { uncork: () => transport.uncork?.() }),
      ...(transport.onceDrain && { onceDrain: (listener: () => void) => transport.onceDrain?.(listener) }),
    };
    this.connection = new Connection({
      id: options.id,
      userId: options.userId,
      socket,
      logger: options.logger,
      sendSoftLimitBytes: limits.sendSoftLimitBytes,
      ...(limits.sendMergeThresholdBytes !== undefined && {
        sendMergeThresholdBytes: limits.sendMergeThresholdBytes,
      }),
      sendHardLimitBytes: limits.sendHardLimitBytes,
      nested: true,
      relayTimes: server.relayTimes,
    });
    const connection = this.connection;
    this.context = {
      connectionId: options.id,
      userId: options.userId,
      logger: options.logger,
      repos: server.repos,
      settings: server.settings,
      frames: server.frames,
      subscriber: { id: options.id, deliver: (frames) => connection.deliver(frames) },
      connections: server.registry,
      signal: this.abort.signal,
      send: (frame) => {
        const current = this.current;
        if (frame.type === "error" && current && frame.request_id === current.requestId) {
          current.error ??= frame;
          return true;
        }
        return connection.send(frame);
      },
    };
    server.registry.add(connection);
  }

  /** Aborted when the transport closes (a turn outlives it; a wait of this connection should not). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /**
   * Counts one client frame against the socket's frame rate limit, as `/ws` does: `refuse` means
   * answer `rate_limited` in the edge's form; on `close` the transport has been closed 1008.
   */
  admit(): FrameVerdict {
    const verdict = this.gate.admit();
    if (verdict === "close") {
      this.logger.warn("rate limit exceeded repeatedly; closing");
      this.connection.close(CloseCode.policyViolation, "rate limit exceeded");
    }
    return verdict;
  }

  /**
   * Handles one native command exactly as a `/ws` frame is handled (parsed and checked by the router),
   * after the commands before it. Resolves with the `error` that answered it, or undefined once it was
   * handled (a turn it started goes on, its frames reaching `onFrame`).
   */
  command(frame: ClientFrame): Promise<ErrorFrame | undefined> {
    this.requests += 1;
    // A caller's own request_id is kept: it is stored with the turn a chat_message starts.
    const requestId = frame.request_id ?? `edge-${this.requests}`;
    const text = JSON.stringify({ ...frame, request_id: requestId });
    const handled = this.queue.then(async () => {
      const current: { requestId: string; error?: ErrorFrame } = { requestId };
      this.current = current;
      try {
        await this.server.router.dispatch(text, this.context);
      } finally {
        this.current = undefined;
      }
      return current.error;
    });
    this.queue = handled.catch(() => undefined);
    return handled;
  }

  /** Records a pong from the client. */
  markAlive(): void {
    this.connection.markAlive();
  }

  /** Call when the transport has closed: stops watching every thread and leaves the server's connections. */
  closed(): void {
    this.server.registry.remove(this.connection);
    this.server.frames.unsubscribeEverywhere(this.id);
    this.connection.markClosed();
    this.abort.abort();
  }
}
