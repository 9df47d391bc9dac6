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
  const transport: Transport =
    "command" in config
      ? new StdioClientTransport({
          command: config.command,
          args: config.args,
          env: spawnEnvironment(config.env) as Record<string, string>,
          stderr: "ignore",
        })
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
    throw err;
  }
}
