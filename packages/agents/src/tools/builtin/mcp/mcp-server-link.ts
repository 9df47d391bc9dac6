import type { McpServerState, McpServerStatus } from "@agentwire-chat/protocol";
import { type McpRetry, mcpRetryDelayMs } from "./mcp-retry.js";
import type { McpSession } from "./mcp-session.js";
import type { BindMcpTool } from "./mcp-tool.js";

/** What one connection offers turns: its compiled tools, and why any listed tool is left out. */
export type McpCatalog = { tools: BindMcpTool[]; unusable: string[] };

/** Where a link's state changes are logged (a pino logger fits). */
export type McpLogger = { warn(obj: object, msg: string): void; info?(obj: object, msg: string): void };

/** Options of McpServerLink. */
export type McpServerLinkOptions = {
  name: string;
  retry: McpRetry;
  /** One handshake, pin checked; `onClose` is called if the connection closes afterwards. */
  open: (signal: AbortSignal, onClose: () => void) => Promise<McpSession>;
  /** The tools a fresh connection offers. */
  compile: (session: McpSession) => McpCatalog;
  /** A failure's reason as operators and models may see it (no secrets). */
  reasonOf: (err: unknown) => string;
  logger?: McpLogger | undefined;
};

/**
 * One configured MCP server's shared connection, kept in the background: it lists the tools turns
 * are offered and tells whether the server is up. Handshakes never run on a turn's path; a failure
 * (a handshake, or a connection that closes) is retried after a backoff, never sooner.
 */
export class McpServerLink {
  readonly name: string;
  readonly #opts: McpServerLinkOptions;
  #state: McpServerState = "idle";
  #since = new Date();
  #reason: string | undefined;
  #attempts = 0;
  #failures = 0;
  #retryAt: Date | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #abort: AbortController | undefined;
  #session: McpSession | undefined;
  #catalog: McpCatalog | undefined;
  #waiters: (() => void)[] = [];
  #closed = false;
  #connecting: Promise<void> | undefined;

  constructor(options: McpServerLinkOptions) {
    this.name = options.name;
    this.#opts = options;
  }

  /** The state now. */
  get state(): McpServerState {
    return this.#state;
  }

  /** Why it failed; undefined unless failed. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** The tools of the live connection; undefined unless connected. */
  get catalog(): McpCatalog | undefined {
    return this.#state === "connected" ? this.#catalog : undefined;
  }

  /** Starts the first handshake in the background; a no-op once started. */
  start(): void {
    if (this.#state === "idle" && !this.#closed) void this.#connect();
  }

  /** Drops the connection and connects afresh now, whatever the backoff (an operator's approval). */
  restart(): void {
    if (this.#closed || this.#state === "idle") return;
    this.#failures = 0;
    void this.#drop();
    void this.#connect();
  }

  /** A user's own session found the server broken: counts as this connection failing. */
  fail(reason: string): void {
    if (this.#state === "connected") this.#failed(reason);
  }

  /** Resolves once no handshake is under way (connected, failed, or never started). */
  settled(): Promise<void> {
    if (this.#state !== "connecting") return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** The state as `GET /api/mcp` shows it. */
  status(): McpServerStatus {
    return {
      name: this.name,
      state: this.#state,
      tools: this.catalog?.tools.length ?? 0,
      ...(this.#reason !== undefined && { reason: this.#reason }),
      attempts: this.#attempts,
      since: this.#since.toISOString(),
      ...(this.#retryAt && { next_retry_at: this.#retryAt.toISOString() }),
    };
  }

  /** Stops retrying, aborts a handshake under way and closes the connection, its process stopped. */
  async close(): Promise<void> {
    this.#closed = true;
    const connecting = this.#connecting;
    const closing = this.#drop();
    for (const resolve of this.#waiters.splice(0)) resolve();
    // An aborted handshake closes its own client (a spawned server is stopped): wait for that too.
    await Promise.all([closing, connecting]);
  }

  #connect(): Promise<void> {
    const attempt = this.#attempt().finally(() => {
      if (this.#connecting === attempt) this.#connecting = undefined;
    });
    this.#connecting = attempt;
    return attempt;
  }

  async #attempt(): Promise<void> {
    const abort = new AbortController();
    this.#abort = abort;
    this.#attempts++;
    this.#set("connecting", undefined);
    let session: McpSession | undefined;
    try {
      session = await this.#opts.open(abort.signal, () => {
        if (session !== undefined && session === this.#session)
          this.#failed("the connection to the server closed");
      });
    } catch (err) {
      if (!abort.signal.aborted) this.#failed(this.#opts.reasonOf(err));
      return;
    }
    if (abort.signal.aborted) {
      await session.close();
      return;
    }
    this.#abort = undefined;
    this.#session = session;
    this.#catalog = this.#opts.compile(session);
    this.#failures = 0;
    this.#set("connected", undefined);
    this.#opts.logger?.info?.(
      { mcp_server: this.name, tools: this.#catalog.tools.length, attempts: this.#attempts },
      "MCP server connected",
    );
    if (this.#catalog.unusable.length > 0) {
      this.#opts.logger?.warn(
        { mcp_server: this.name, unusable: this.#catalog.unusable },
        "MCP tools left out",
      );
    }
  }

  #failed(reason: string): void {
    void this.#drop();
    this.#failures++;
    const delay = mcpRetryDelayMs(this.#failures, this.#opts.retry);
    this.#retryAt = new Date(Date.now() + delay);
    this.#set("failed", reason);
    this.#opts.logger?.warn(
      { mcp_server: this.name, reason, attempts: this.#attempts, retry_in_ms: delay },
      "MCP server failed",
    );
    // unref: a pending retry must not keep a finished process (a test, the CLI) alive.
    this.#timer = setTimeout(() => void this.#connect(), delay);
    this.#timer.unref?.();
  }

  /** Forgets the connection, the handshake under way and the pending retry; resolves once closed. */
  #drop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#retryAt = undefined;
    this.#abort?.abort();
    this.#abort = undefined;
    const session = this.#session;
    this.#session = undefined;
    this.#catalog = undefined;
    return session ? session.close() : Promise.resolve();
  }

  #set(state: McpServerState, reason: string | undefined): void {
    this.#state = state;
    this.#reason = reason;
    this.#since = new Date();
    if (state !== "connecting") for (const resolve of this.#waiters.splice(0)) resolve();
  }
}
