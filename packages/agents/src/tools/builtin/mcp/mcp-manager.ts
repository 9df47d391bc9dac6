import type { PermissionClass } from "../../../turn/permission-class.js";
import { type AjvLogger, createAjv } from "../../create-ajv.js";
import type { Tool } from "../../tool.js";
import type { Checked } from "../workspace/confine-path.js";
import type { McpServersConfig } from "./mcp-config.js";
import { type McpSession, openMcpSession } from "./mcp-session.js";
import { mcpToolToTool } from "./mcp-tool.js";
import type { PinStore } from "./tool-pins.js";

/** Options of McpManager. */
export type McpManagerOptions = {
  config: McpServersConfig;
  pins: PinStore;
  /** Pin a server's tools the first time they are seen (default true); false: refuse until approve(). */
  pinOnFirstUse?: boolean;
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
  maxResultChars?: number;
  maxDescriptionChars?: number;
  /** Where ajv's notes on the servers' schemas (e.g. an unknown `format`) go; default: dropped. */
  logger?: AjvLogger;
};

/** The MCP tools a user may use now, and why any allowed server or tool is missing. */
export type McpToolset = { tools: Tool[]; unavailable: { server: string; reason: string }[] };

/**
 * Connects operator-configured MCP servers on demand, one client session per (user, server),
 * only for servers on the caller's allowlist, and only while their tool definitions match the pin.
 */
export class McpManager {
  readonly #opts: Required<Omit<McpManagerOptions, "logger">> & Pick<McpManagerOptions, "logger">;
  readonly #sessions = new Map<string, Map<string, Promise<McpSession>>>();
  #pinChain: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: McpManagerOptions) {
    this.#opts = {
      pinOnFirstUse: true,
      connectTimeoutMs: 20_000,
      callTimeoutMs: 60_000,
      maxResultChars: 50_000,
      maxDescriptionChars: 2_000,
      ...options,
    };
  }

  /** The namespaced tools of the allowed, configured servers for one user. Never starts another server. */
  async toolsFor(userId: string, allowedServers: readonly string[]): Promise<McpToolset> {
    const out: McpToolset = { tools: [], unavailable: [] };
    for (const server of new Set(allowedServers)) {
      const config = Object.hasOwn(this.#opts.config.servers, server)
        ? this.#opts.config.servers[server]
        : undefined;
      if (!config) {
        out.unavailable.push({ server, reason: "not configured" });
        continue;
      }
      let session: McpSession;
      try {
        session = await this.#session(userId, server);
      } catch (err) {
        out.unavailable.push({ server, reason: reasonOf(err) });
        continue;
      }
      const ajv = createAjv({ logger: this.#opts.logger });
      for (const def of session.tools) {
        const tool = mcpToolToTool(
          def,
          {
            server,
            permissionClass: (config.permission_class ?? "network") as PermissionClass,
            parallelSafe: config.parallel_safe ?? false,
            callTimeoutMs: this.#opts.callTimeoutMs,
            maxResultChars: this.#opts.maxResultChars,
            maxDescriptionChars: this.#opts.maxDescriptionChars,
            client: async () => (await this.#session(userId, server)).client,
          },
          ajv,
        );
        if (tool.ok) out.tools.push(tool.value);
        else out.unavailable.push({ server, reason: tool.reason });
      }
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
      return { ok: true, value: { hash: session.hash, tools: session.tools.map((t) => t.name) } };
    } catch (err) {
      return { ok: false, reason: reasonOf(err) };
    }
  }

  /** Closes one user's sessions (e.g. when their last connection ends). */
  closeUser(userId: string): Promise<void> {
    return this.#closeWhere((u) => u === userId);
  }

  /** Closes every session; later calls to toolsFor return nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#closeWhere(() => true);
  }

  #session(userId: string, server: string): Promise<McpSession> {
    if (this.#closed) return Promise.reject(new Error("the MCP manager is closed"));
    let perUser = this.#sessions.get(userId);
    if (!perUser) {
      perUser = new Map();
      this.#sessions.set(userId, perUser);
    }
    const cached = perUser.get(server);
    const fresh = async (): Promise<McpSession> => this.#open(server);
    const next: Promise<McpSession> = cached ? cached.then((s) => (s.closed ? fresh() : s), fresh) : fresh();
    const map = perUser;
    map.set(server, next);
    next.catch(() => {
      if (map.get(server) === next) map.delete(server);
    });
    return next;
  }

  async #open(server: string): Promise<McpSession> {
    const config = this.#opts.config.servers[server];
    if (!config) throw new Error("not configured");
    const session = await openMcpSession(server, config, { connectTimeoutMs: this.#opts.connectTimeoutMs });
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

function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.slice(0, 500);
}
