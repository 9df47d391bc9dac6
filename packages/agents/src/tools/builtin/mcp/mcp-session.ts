import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "./mcp-config.js";
import { hashToolDefinitions, type PinnedToolDefinition } from "./tool-pins.js";

/** One connected MCP client with the tool list it announced at connect time. */
export type McpSession = {
  server: string;
  client: Client;
  tools: PinnedToolDefinition[];
  hash: string;
  /** Closes the client (and stops a spawned server); safe to call twice. */
  close(): Promise<void>;
  /** Set when the transport closed, by us or by the server. */
  readonly closed: boolean;
};

/** The parent variables a spawned server inherits; everything else (API keys included) stays behind. */
export const INHERITED_ENV = ["PATH", "HOME", "LANG"] as const;
// The SDK adds its own defaults (HOME, LOGNAME, PATH, SHELL, TERM, USER); an undefined value overrides
// them and child_process drops undefined entries, so only INHERITED_ENV + the operator's env remain.
const SDK_DEFAULTS_TO_DROP = ["LOGNAME", "SHELL", "TERM", "USER", "USERPROFILE", "APPDATA"];

/** The exact environment of a spawned server: the inherited allowlist plus what the operator configured. */
export function spawnEnvironment(
  configured: Record<string, string> | undefined,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const key of SDK_DEFAULTS_TO_DROP) env[key] = undefined;
  for (const key of INHERITED_ENV) if (parent[key] !== undefined) env[key] = parent[key];
  return { ...env, ...configured };
}

/**
 * Loaded lazily: the HTTP transport pulls in eventsource-parser, whose "source" export condition
 * points at TypeScript files that the repo's `source`-conditioned test runner cannot load from node_modules.
 */
async function httpTransport(url: string, headers: Record<string, string> | undefined): Promise<Transport> {
  const { StreamableHTTPClientTransport } = await import(
    "@modelcontextprotocol/sdk/client/streamableHttp.js"
  );
  return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: headers ?? {} } });
}

const MAX_PAGES = 10;
const MAX_TOOLS = 200;

/** Connects to one server (spawning it for stdio), lists its tools and hashes their definitions. */
export async function openMcpSession(
  server: string,
  config: McpServerConfig,
  opts: {
    connectTimeoutMs: number;
    /** Aborts the handshake (a shutdown, or a restart after an approval). */
    signal?: AbortSignal;
    /** Called once when the transport closes after the handshake (by us or by the server). */
    onClose?: () => void;
  },
): Promise<McpSession> {
  let child: ChildProcess | undefined;
  const transport: Transport =
    "command" in config
      ? keepChild(
          new StdioClientTransport({
            command: config.command,
            args: config.args,
            env: spawnEnvironment(config.env) as Record<string, string>,
            stderr: "ignore",
          }),
          (spawned) => {
            child = spawned;
          },
        )
      : await httpTransport(config.url, config.headers);
  const client = new Client({ name: "agentwire", version: "0.1.0" }, { capabilities: {} });
  let closed = false;
  let connected = false;
  client.onclose = () => {
    closed = true;
    if (connected) opts.onClose?.();
  };
  const close = async () => {
    closed = true;
    await client.close().catch(() => undefined);
  };
  try {
    const request = { timeout: opts.connectTimeoutMs, ...(opts.signal && { signal: opts.signal }) };
    await client.connect(transport, request);
    const tools: PinnedToolDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await client.listTools(cursor ? { cursor } : {}, request);
      tools.push(...res.tools);
      cursor = res.nextCursor;
      if (!cursor || tools.length >= MAX_TOOLS) break;
    }
    const listed = tools.slice(0, MAX_TOOLS);
    if (closed) throw new Error("the server closed the connection during the handshake");
    connected = true;
    return {
      server,
      client,
      tools: listed,
      hash: hashToolDefinitions(listed),
      close,
      get closed() {
        return closed;
      },
    };
  } catch (err) {
    await close();
    await stopChild(child);
    throw err;
  }
}

/**
 * Hands over the process a stdio transport spawns. The SDK keeps it private, and when a handshake
 * fails it closes the transport itself without waiting: a server that ignores its stdin closing
 * (`sleep`, a hung one) would get its SIGTERM only two seconds later, or never if we exit first.
 */
function keepChild(transport: StdioClientTransport, take: (child: ChildProcess) => void): Transport {
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const spawned = (transport as unknown as { _process?: ChildProcess })._process;
    if (spawned) take(spawned);
  };
  return transport;
}

/** Kills a server that never completed its handshake (nothing of it to flush) and waits for it to go. */
async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit").catch(() => undefined);
  child.kill("SIGKILL");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
}
