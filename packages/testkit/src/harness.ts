/**
 * Shared test harness: a real server on an ephemeral port with a temp SQLite file, real `ws` clients,
 * and waits on events (never sleeps). Used by every websocket/server test; the chat-turn tests too.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ServerFrame,
  type ServerFrameOf,
  ServerFrame as ServerFrameSchema,
  type ServerFrameType,
} from "@agentwire-chat/protocol";
import type { FrameLog, FrameLogMemory, Repositories, Storage } from "@agentwire-chat/storage";
import {
  type AgentwireServices,
  type AuthSettings,
  type CommandHandlers,
  createLogger,
  createServer,
  generateApiToken,
  hashApiToken,
  type ReadinessChecks,
  type ServerLimitsInput,
} from "@agentwire-chat/websocket";
import type { FastifyInstance } from "fastify";
import WebSocket from "ws";
import { countRows, openTestStorage } from "./test-storage.js";

// Tests of servers reach the database through the harness too.
export { countRows, openTestStorage, testDialect, testPostgresUrl } from "./test-storage.js";

export interface TestServerOptions {
  /** `none` (default), `token` (tokens made with `createToken`), or full settings with static tokens. */
  auth?: "none" | "token" | AuthSettings;
  allowedOrigins?: string[];
  allowedHosts?: string[];
  /** More routes registered before listening (e.g. a web app's wildcard). */
  routes?: (app: FastifyInstance) => Promise<void>;
  limits?: ServerLimitsInput;
  services?: AgentwireServices;
  handlers?: Partial<CommandHandlers>;
  logLevel?: string;
  /** More dependencies `/ready` checks. */
  readiness?: ReadinessChecks;
  /**
   * An existing database file to open (e.g. one a previous server used, to test a restart). The
   * caller owns it: `close()` then leaves the file and its directory in place.
   */
  dbPath?: string;
  /** How much of each thread the frame log keeps in memory (its replay window). */
  frameLogMemory?: FrameLogMemory;
}

export interface TestServer {
  app: FastifyInstance;
  repos: Repositories;
  storage: Storage;
  /** The server's frame log. */
  frames: FrameLog;
  /** The SQLite file, or on Postgres a name for the database: pass it as `dbPath` to reopen the same data. */
  dbPath: string;
  /** Rows in a table, on either dialect (tests that check nothing was stored). */
  countRows(table: string): Promise<number>;
  /** http://127.0.0.1:PORT */
  httpUrl: string;
  /** ws://127.0.0.1:PORT/ws */
  wsUrl: string;
  /** Every JSON log line the server wrote. */
  logs: string[];
  /** Creates the user (if needed) and an API token for it; returns the token. */
  createToken(userId: string): Promise<string>;
  /** Opens a client and waits for the upgrade; rejects when it is refused. */
  connect(options?: ConnectOptions): Promise<TestClient>;
  /** `fetch` against the server with an optional Bearer token. */
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  /** Closes the server (1012 to clients), the database, and removes the temp directory (if it made one). Idempotent. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  token?: string;
  /** How the token is carried (default `header`). */
  carrier?: "header" | "subprotocol" | "query";
  origin?: string;
  /** Extra subprotocols; `agentwire.v1` is always offered with the bearer subprotocol. */
  protocols?: string[];
  /**
   * A client that ignores nesting: it does not offer `agentwire.v1+nested` (offered by default, as
   * the web app and the CLI do) and so gets only depth-0 text.
   */
  flat?: boolean;
  wsOptions?: WebSocket.ClientOptions;
}

/** Starts a server on 127.0.0.1, port 0, with a fresh SQLite file. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = options.dbPath === undefined ? mkdtempSync(join(tmpdir(), "agentwire-test-")) : undefined;
  const dbPath = options.dbPath ?? join(dir as string, "test.db");
  const storage = await openTestStorage(dbPath);
  const logs: string[] = [];
  const logger = createLogger({
    level: options.logLevel ?? "info",
    destination: { write: (line) => logs.push(line) },
  });
  const auth: AuthSettings =
    options.auth === undefined || options.auth === "none"
      ? { mode: "none" }
      : options.auth === "token"
        ? { mode: "token", staticTokens: [] }
        : options.auth;
  const { app, repos, frames } = await createServer({
    storage,
    logger,
    ...(options.frameLogMemory && { frameLog: storage.createFrameLog(logger, options.frameLogMemory) }),
    auth,
    allowedOrigins: options.allowedOrigins ?? [],
    allowedHosts: options.allowedHosts ?? [],
    limits: options.limits ?? {},
    services: options.services ?? ({} as AgentwireServices),
    handlers: options.handlers ?? {},
    ...(options.readiness && { readiness: options.readiness }),
  });
  if (options.routes) await options.routes(app);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const httpUrl = `http://127.0.0.1:${address.port}`;
  const wsUrl = `ws://127.0.0.1:${address.port}/ws`;
  const clients = new Set<TestClient>();
  let closed = false;

  return {
    app,
    repos,
    storage,
    frames,
    dbPath,
    countRows: (table) => countRows(storage, table),
    httpUrl,
    wsUrl,
    logs,
    async createToken(userId) {
      const token = generateApiToken();
      await repos.users.ensure(userId);
      await repos.apiTokens.create(userId, hashApiToken(token));
      return token;
    },
    async connect(connectOptions = {}) {
      const client = await TestClient.open(wsUrl, connectOptions);
      clients.add(client);
      return client;
    },
    fetch(path, init = {}) {
      const { token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
      return fetch(httpUrl + path, { ...rest, headers });
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      for (const client of clients) client.ws.terminate();
      await storage.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The HTTP status of a refused upgrade (401, 403, 429, 503...), or `101` when it was accepted. */
export function upgradeStatus(wsUrl: string, options: ConnectOptions = {}): Promise<number> {
  const { url, protocols, wsOptions } = clientArgs(wsUrl, options);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, wsOptions);
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("open", () => {
      resolve(101);
      ws.close();
    });
    ws.once("error", (error) => reject(error));
  });
}

function clientArgs(wsUrl: string, options: ConnectOptions) {
  const url = new URL(wsUrl);
  const headers: Record<string, string> = { ...(options.wsOptions?.headers as Record<string, string>) };
  let protocols = [...(options.protocols ?? [])];
  if (options.token !== undefined) {
    const carrier = options.carrier ?? "header";
    if (carrier === "header") headers.authorization = `Bearer ${options.token}`;
    if (carrier === "query") url.searchParams.set("api_key", options.token);
    if (carrier === "subprotocol")
      protocols = ["agentwire.v1", `agentwire.bearer.${options.token}`, ...protocols];
  }
  if (!options.flat && !protocols.includes("agentwire.v1+nested")) protocols.unshift("agentwire.v1+nested");
  const wsOptions: WebSocket.ClientOptions = { ...options.wsOptions, headers };
  if (options.origin !== undefined) wsOptions.origin = options.origin;
  return { url: url.toString(), protocols, wsOptions };
}

type Waiter = {
  match: (frame: ServerFrame) => boolean;
  resolve: (frame: ServerFrame) => void;
  reject: (e: Error) => void;
};

/** A real `ws` client that keeps every frame it received and lets a test await the next one of a type. */
export class TestClient {
  /** Every frame received, in order (consumed or not). */
  readonly received: ServerFrame[] = [];
  /** Resolves with the close code and reason once the socket closes. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly unread: ServerFrame[] = [];
  private readonly waiters = new Set<Waiter>();
  private failure: Error | undefined;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => {
      ws.on("close", (code, reason) => {
        const error = new Error(`socket closed (${code} ${reason.toString()}) while waiting for a frame`);
        for (const waiter of this.waiters) waiter.reject(error);
        this.waiters.clear();
        resolve({ code, reason: reason.toString() });
      });
    });
    ws.on("message", (data) => this.onFrame(data.toString()));
  }

  /** Connects and waits for `open`; rejects with the HTTP status when the upgrade is refused. */
  static open(wsUrl: string, options: ConnectOptions = {}): Promise<TestClient> {
    const { url, protocols, wsOptions } = clientArgs(wsUrl, options);
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, protocols, wsOptions);
      const client = new TestClient(ws);
      ws.once("open", () => resolve(client));
      ws.once("unexpected-response", (_req, res) => {
        reject(new Error(`upgrade refused with HTTP ${res.statusCode}`));
        ws.terminate();
      });
      ws.once("error", reject);
    });
  }

  /** Sends a frame: an object is JSON-encoded, a string is sent as is. */
  send(frame: object | string): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** Sends `{command, data, request_id}`. */
  command(command: string, data: unknown, requestId?: string): void {
    this.send({ command, data, ...(requestId !== undefined && { request_id: requestId }) });
  }

  /** The next unread frame of `type` (optionally also matching `where`), waiting up to `timeoutMs`. */
  next<T extends ServerFrameType>(
    type: T,
    options: { where?: (frame: ServerFrameOf<T>) => boolean; timeoutMs?: number } = {},
  ): Promise<ServerFrameOf<T>> {
    const match = (frame: ServerFrame) =>
      frame.type === type && (options.where?.(frame as ServerFrameOf<T>) ?? true);
    return this.take(match, options.timeoutMs ?? 5000, `a "${type}" frame`) as Promise<ServerFrameOf<T>>;
  }

  /** The next unread frame of any type. */
  nextFrame(timeoutMs = 5000): Promise<ServerFrame> {
    return this.take(() => true, timeoutMs, "any frame");
  }

  /**
   * Every unread frame up to and including the first that matches `until` (e.g. the turn's final
   * `chunk` with `done: true`), in arrival order; they are consumed.
   */
  async collectUntil(until: (frame: ServerFrame) => boolean, timeoutMs = 10_000): Promise<ServerFrame[]> {
    const frames: ServerFrame[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = await this.nextFrame(Math.max(1, deadline - Date.now()));
      frames.push(frame);
      if (until(frame)) return frames;
    }
  }

  /** Sends `ping` and waits for its `pong`: proves the connection still answers. */
  async ping(timeoutMs = 5000): Promise<void> {
    const requestId = `ping-${Math.random().toString(36).slice(2)}`;
    this.command("ping", {}, requestId);
    await this.next("pong", { where: (f) => f.request_id === requestId, timeoutMs });
  }

  /** Waits for the socket to close (up to `timeoutMs`). */
  waitForClose(timeoutMs = 5000): Promise<{ code: number; reason: string }> {
    return withTimeout(this.closed, timeoutMs, "the socket to close");
  }

  /** Closes from the client side and waits for the close. */
  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close();
    await this.closed;
  }

  private onFrame(text: string): void {
    const parsed = ServerFrameSchema.safeParse(JSON.parse(text));
    if (!parsed.success) {
      // Outbound frames are checked against the contract: a bad one fails whatever test is waiting.
      this.failure = new Error(`server sent a frame outside the contract: ${text}\n${parsed.error.message}`);
      for (const waiter of this.waiters) waiter.reject(this.failure);
      this.waiters.clear();
      return;
    }
    const frame = parsed.data;
    this.received.push(frame);
    for (const waiter of this.waiters) {
      if (waiter.match(frame)) {
        this.waiters.delete(waiter);
        waiter.resolve(frame);
        return;
      }
    }
    this.unread.push(frame);
  }

  private take(
    match: (frame: ServerFrame) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<ServerFrame> {
    if (this.failure) return Promise.reject(this.failure);
    const index = this.unread.findIndex(match);
    if (index >= 0) return Promise.resolve(this.unread.splice(index, 1)[0]!);
    if (this.ws.readyState === WebSocket.CLOSED)
      return Promise.reject(new Error(`socket closed; no ${what}`));
    return withTimeout(
      new Promise<ServerFrame>((resolve, reject) => this.waiters.add({ match, resolve, reject })),
      timeoutMs,
      what,
      () => {
        for (const waiter of this.waiters) if (waiter.match === match) this.waiters.delete(waiter);
      },
    );
  }
}

/** Rejects with a message naming what was awaited when `promise` takes longer than `ms`. */
export function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  onTimeout?: () => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
