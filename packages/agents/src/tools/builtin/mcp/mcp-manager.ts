import type { McpServerStatus } from "@agentwire-chat/protocol";
import type { PermissionClass } from "../../../turn/permission-class.js";
import { type AjvLogger, createAjv } from "../../create-ajv.js";
import type { Tool } from "../../tool.js";
import type { Checked } from "../workspace/confine-path.js";
import type { McpServersConfig } from "./mcp-config.js";
import { mcpFailureReason } from "./mcp-failure-reason.js";
import { DEFAULT_MCP_RETRY, type McpRetry } from "./mcp-retry.js";
import { type McpCatalog, McpServerLink } from "./mcp-server-link.js";
import { type McpSession, openMcpSession } from "./mcp-session.js";
import { compileMcpTool } from "./mcp-tool.js";
import type { PinStore } from "./tool-pins.js";

/** Options of McpManager. */
export type McpManagerOptions = {
  config: McpServersConfig;
  pins: PinStore;
  /** Pin a server's tools the first time they are seen (default true); false: refuse until approve(). */
  pinOnFirstUse?: boolean;
  /** How long one handshake (connect and list the tools) may take (default 20 s). */
  connectTimeoutMs?: number;
  /** The backoff of a failed server (default 1 s doubling to 60 s). */
  retry?: McpRetry;
  callTimeoutMs?: number;
  maxResultChars?: number;
  maxDescriptionChars?: number;
  /** Where connections, failures and ajv's notes on the servers' schemas go; default: dropped. */
  logger?: AjvLogger & { info?(obj: object, msg: string): void };
};

/** The MCP tools a user may use now, and why any allowed server or tool is missing. */
export type McpToolset = { tools: Tool[]; unavailable: { server: string; reason: string }[] };

/**
 * Operator-configured MCP servers, connected in the background and in parallel, each once a policy
 * names it (`connect` at start-up, or a turn's `toolsFor`); a turn is offered the tools of the servers
 * connected at that moment and never waits on a handshake. Calls run on one client session per
 * (user, server), opened in the background when the user's turn is first offered the server's tools,
 * and only while the server's tool definitions match the pin.
 */
export class McpManager {
  readonly #opts: Required<Omit<McpManagerOptions, "logger">> & Pick<McpManagerOptions, "logger">;
  readonly #links = new Map<string, McpServerLink>();
  readonly #sessions = new Map<string, Map<string, Promise<McpSession>>>();
  readonly #shutdown = new AbortController();
  #pinChain: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: McpManagerOptions) {
    this.#opts = {
      pinOnFirstUse: true,
      connectTimeoutMs: 20_000,
      retry: DEFAULT_MCP_RETRY,
      callTimeoutMs: 60_000,
      maxResultChars: 50_000,
      maxDescriptionChars: 2_000,
      ...options,
    };
    for (const name of Object.keys(this.#opts.config.servers).sort()) {
      this.#links.set(
        name,
        new McpServerLink({
          name,
          retry: this.#opts.retry,
          open: (signal, onClose) => this.#open(name, signal, onClose),
          compile: (session) => this.#compile(name, session),
          reasonOf: (err) => this.#reasonOf(name, err),
          logger: this.#opts.logger,
        }),
      );
    }
  }

  /** Starts connecting these configured servers in the background (names not configured are skipped). */
  connect(servers: readonly string[]): void {
    if (this.#closed) return;
    for (const server of servers) this.#links.get(server)?.start();
  }

  /** Resolves once none of these servers (default: all) is in the middle of a handshake. */
  async settled(servers?: readonly string[]): Promise<void> {
    const links = servers ? servers.flatMap((s) => this.#links.get(s) ?? []) : [...this.#links.values()];
    await Promise.all(links.map((link) => link.settled()));
  }

  /** Every configured server's state, by name. */
  status(): McpServerStatus[] {
    return [...this.#links.values()].map((link) => link.status());
  }

  /**
   * The namespaced tools of the allowed servers connected now, bound to this user's sessions. Never
   * waits: a server the policy names for the first time starts connecting and is offered once up.
   * Never starts a server that is not allowed.
   */
  toolsFor(userId: string, allowedServers: readonly string[]): McpToolset {
    const out: McpToolset = { tools: [], unavailable: [] };
    for (const server of new Set(allowedServers)) {
      const link = this.#links.get(server);
      if (!link) {
        out.unavailable.push({ server, reason: "not configured" });
        continue;
      }
      if (this.#closed) {
        out.unavailable.push({ server, reason: "the MCP manager is closed" });
        continue;
      }
      link.start();
      const catalog = link.catalog;
      if (!catalog) {
        out.unavailable.push({ server, reason: link.reason ?? "connecting" });
        continue;
      }
      this.#prewarm(userId, server);
      const client = async () => (await this.#session(userId, server)).client;
      for (const bind of catalog.tools) out.tools.push(bind(client));
      for (const reason of catalog.unusable) out.unavailable.push({ server, reason });
    }
    return out;
  }

  /** Operator action: connect afresh, pin the server's current tool definitions, drop sessions on the old pin. */
  async approve(server: string): Promise<Checked<{ hash: string; tools: string[] }>> {
    const config = Object.hasOwn(this.#opts.config.servers, server)
      ? this.#opts.config.servers[server]
      : undefined;
    if (!config) return { ok: false, reason: `MCP server ${server} is not configured` };
    try {
      const session = await openMcpSession(server, config, { connectTimeoutMs: this.#opts.connectTimeoutMs });
      await session.close();
      await this.#withPins(() => this.#opts.pins.set(server, session.hash));
      await this.#closeWhere((_, s) => s === server);
      this.#links.get(server)?.restart();
      return { ok: true, value: { hash: session.hash, tools: session.tools.map((t) => t.name) } };
    } catch (err) {
      return { ok: false, reason: this.#reasonOf(server, err) };
    }
  }

  /** Closes one user's sessions (e.g. when their last connection ends). */
  closeUser(userId: string): Promise<void> {
    return this.#closeWhere((u) => u === userId);
  }

  /** Closes every connection and session, and stops retrying; later calls to toolsFor return nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#shutdown.abort();
    await Promise.all([...this.#links.values()].map((link) => link.close()));
    await this.#closeWhere(() => true);
  }

  /** Opens the user's session ahead of the model's first call, so that call does not wait on a handshake. */
  #prewarm(userId: string, server: string): void {
    if (this.#sessions.get(userId)?.has(server)) return;
    this.#session(userId, server).catch(() => undefined);
  }

  #session(userId: string, server: string): Promise<McpSession> {
    if (this.#closed) return Promise.reject(new Error("the MCP manager is closed"));
    let perUser = this.#sessions.get(userId);
    if (!perUser) {
      perUser = new Map();
      this.#sessions.set(userId, perUser);
    }
    const cached = perUser.get(server);
    const fresh = async (): Promise<McpSession> => this.#open(server, this.#shutdown.signal);
    const next: Promise<McpSession> = cached ? cached.then((s) => (s.closed ? fresh() : s), fresh) : fresh();
    const map = perUser;
    map.set(server, next);
    next.catch((err: unknown) => {
      if (map.get(server) === next) map.delete(server);
      // The user's handshake failing means the server is broken (or its tools changed): the shared
      // link goes to `failed` and its backoff, so turns stop being offered it and nothing retries per turn.
      if (!this.#closed) this.#links.get(server)?.fail(this.#reasonOf(server, err));
    });
    return next;
  }

  async #open(server: string, signal: AbortSignal, onClose?: () => void): Promise<McpSession> {
    const config = this.#opts.config.servers[server];
    if (!config) throw new Error("not configured");
    const session = await openMcpSession(server, config, {
      connectTimeoutMs: this.#opts.connectTimeoutMs,
      signal,
      ...(onClose && { onClose }),
    });
    const verdict = await this.#withPins(async () => {
      const pinned = await this.#opts.pins.get(server);
      if (pinned === session.hash) return null;
      if (pinned === undefined && this.#opts.pinOnFirstUse) {
        await this.#opts.pins.set(server, session.hash);
        return null;
      }
      return pinned === undefined
        ? `MCP server ${server} has not been approved by an operator`
        : `the tools of MCP server ${server} changed since they were approved; an operator must re-approve it`;
    });
    if (verdict !== null || this.#closed) {
      await session.close();
      throw new Error(verdict ?? "the MCP manager is closed");
    }
    return session;
  }

  /** The tools one connection offers, each compiled once (ajv) and bound per user later. */
  #compile(server: string, session: McpSession): McpCatalog {
    const config = this.#opts.config.servers[server];
    const ajv = createAjv({ logger: this.#opts.logger });
    const catalog: McpCatalog = { tools: [], unusable: [] };
    for (const def of session.tools) {
      const tool = compileMcpTool(
        def,
        {
          server,
          permissionClass: (config?.permission_class ?? "network") as PermissionClass,
          parallelSafe: config?.parallel_safe ?? false,
          callTimeoutMs: this.#opts.callTimeoutMs,
          maxResultChars: this.#opts.maxResultChars,
          maxDescriptionChars: this.#opts.maxDescriptionChars,
        },
        ajv,
      );
      if (tool.ok) catalog.tools.push(tool.value);
      else catalog.unusable.push(tool.reason);
    }
    return catalog;
  }

  #reasonOf(server: string, err: unknown): string {
    const config = this.#opts.config.servers[server];
    return config ? mcpFailureReason(err, config, this.#opts.connectTimeoutMs) : "not configured";
  }

  /** Runs pin reads and writes one at a time, so two first connections cannot both pin. */
  #withPins<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#pinChain.then(job, job);
    this.#pinChain = run.catch(() => undefined);
    return run;
  }

  async #closeWhere(match: (userId: string, server: string) => boolean): Promise<void> {
    const closing: Promise<unknown>[] = [];
    for (const [userId, perUser] of this.#sessions) {
      for (const [server, session] of perUser) {
        if (!match(userId, server)) continue;
        perUser.delete(server);
        closing.push(session.then((s) => s.close()).catch(() => undefined));
      }
      if (perUser.size === 0) this.#sessions.delete(userId);
    }
    await Promise.all(closing);
  }
}
