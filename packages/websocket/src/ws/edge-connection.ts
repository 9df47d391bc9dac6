import type { ClientFrame, ErrorFrame, ServerFrame } from "@agentwire-chat/protocol";
import type { FrameLog, Repositories } from "@agentwire-chat/storage";
import type { FastifyBaseLogger, FastifyRequest } from "fastify";
import { CloseCode } from "./close-codes.js";
import type { CommandRouter } from "./command-router.js";
import { Connection, type SocketLike } from "./connection.js";
import type { ConnectionContext } from "./connection-context.js";
import type { ConnectionRegistry } from "./connection-registry.js";
import { FrameGate, type FrameVerdict } from "./frame-gate.js";
import type { RelayTimes } from "./relay-times.js";
import type { ServerSettings } from "./server-settings.js";
import type { Admission, UpgradeChecks } from "./upgrade-checks.js";

/** What every edge, `/ws` among them, is served with: the server's settings, storage, open connections and command router. */
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

/**
 * Where a connection's frames go. A `/ws` socket gets each as its JSON, nested text only if its client
 * offered to render it; another edge gets every frame parsed, to project onto its own protocol.
 */
export type EdgeOutput =
  | { socket: SocketLike; nested: boolean }
  | {
      transport: EdgeTransport;
      /**
       * Each frame a nested `/ws` socket would get, parsed, in its order: replies and the frames of every
       * thread this connection watches (a turn it started or resumed). Errors answering a `command` are
       * that call's result instead.
       */
      onFrame(frame: ServerFrame): void;
    };

export type EdgeConnectionOptions = EdgeOutput & {
  /** The authenticated request the connection came in on: its id and user are the connection's. */
  request: FastifyRequest;
  /** The edge's name, logged on each of its lines; `/ws` has none. */
  edge?: string;
  /** The checks the socket passed before its upgrade: its place under the per-user cap is given back on close. */
  upgrade?: UpgradeChecks;
};

/**
 * One client connection of any edge (`/ws`, the AI SDK's socket, AG-UI's SSE) as the native command
 * router sees it: its id and user (the request's), its logger, its place among the server's
 * connections and, for an upgraded socket, under the user's cap, all given back by `closed`.
 *
 * For a protocol served beside `/ws` it is an in-process client: commands go through the same router
 * and handlers as a socket's, under the same user, so auth scoping, limits, busy rules and durability
 * hold unchanged; the frames a native socket would get (nested text included) are handed to `onFrame`
 * to be projected, and the native connection's backpressure applies to the edge's transport. There is
 * no second turn lifecycle.
 */
export class EdgeConnection {
  readonly id: string;
  readonly userId: string;
  /** Carries connection_id and user_id (and the edge's name). */
  readonly logger: FastifyBaseLogger;
  private readonly connection: Connection;
  private readonly context: ConnectionContext;
  private readonly server: EdgeServer;
  private readonly gate: FrameGate;
  private readonly admission: Admission | undefined;
  private readonly abort = new AbortController();
  private queue: Promise<unknown> = Promise.resolve();
  private requests = 0;
  /** The request_id of the command being handled, and the error that answered it. */
  private current: { requestId: string; error?: ErrorFrame } | undefined;

  constructor(server: EdgeServer, options: EdgeConnectionOptions) {
    const { limits } = server.settings;
    const { request } = options;
    this.id = request.id;
    this.userId = request.userId;
    this.logger = request.log.child({
      connection_id: request.id,
      user_id: request.userId,
      ...(options.edge !== undefined && { edge: options.edge }),
    });
    this.server = server;
    this.gate = new FrameGate(limits);
    this.admission = options.upgrade?.upgraded(request);
    this.connection = new Connection({
      id: this.id,
      userId: this.userId,
      socket: "socket" in options ? options.socket : this.projecting(options.transport, options.onFrame),
      logger: this.logger,
      sendSoftLimitBytes: limits.sendSoftLimitBytes,
      ...(limits.sendMergeThresholdBytes !== undefined && {
        sendMergeThresholdBytes: limits.sendMergeThresholdBytes,
      }),
      sendHardLimitBytes: limits.sendHardLimitBytes,
      nested: "socket" in options ? options.nested : true,
      relayTimes: server.relayTimes,
    });
    const connection = this.connection;
    this.context = {
      connectionId: this.id,
      userId: this.userId,
      logger: this.logger,
      repos: server.repos,
      settings: server.settings,
      frames: server.frames,
      subscriber: { id: this.id, deliver: (frames) => connection.deliver(frames) },
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

  /**
   * The native connection writes JSON; the edge reads it back as frames (committed frames arrive as
   * their logged JSON, so parsing here is the one cost of a projection).
   */
  private projecting(transport: EdgeTransport, onFrame: (frame: ServerFrame) => void): SocketLike {
    return {
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
  }

  /** Aborted when the transport closes (a turn outlives it; a wait of this connection should not). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /**
   * Counts one client frame against the socket's frame rate limit: `refuse` means answer
   * `rate_limited` in the edge's form, `close` means `closeRateLimited`.
   */
  admit(): FrameVerdict {
    return this.gate.admit();
  }

  /** Closes the transport 1008: the client went on past the frame rate limit. */
  closeRateLimited(): void {
    this.logger.warn("rate limit exceeded repeatedly; closing");
    this.connection.close(CloseCode.policyViolation, "rate limit exceeded");
  }

  /** Sends a frame outside the log (a reply), respecting backpressure; false when it was not sent. */
  send(frame: ServerFrame): boolean {
    return this.context.send(frame);
  }

  /** Hands one client frame's text to the command router, which parses and checks it. */
  dispatch(text: string): Promise<void> {
    return this.server.router.dispatch(text, this.context);
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
        await this.dispatch(text);
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

  /**
   * Call when the transport has closed: stops watching every thread, leaves the server's connections
   * and gives back the socket's place under the user's cap.
   */
  closed(): void {
    this.server.registry.remove(this.connection);
    this.server.frames.unsubscribeEverywhere(this.id);
    this.connection.markClosed();
    this.abort.abort();
    this.admission?.release();
  }
}
