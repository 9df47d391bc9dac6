import {
  askUserTool,
  createMemoryTools,
  createWebFetchTool,
  createWebSearchTool,
  createWorkspaceTools,
  type McpManager,
  type MemoryLimits,
  runSubtaskTool,
  type Tool,
  type WebFetchOptions,
  type WebSearchOptions,
  type WorkspaceLimits,
} from "@agentwire-chat/agents";
import type { MemoriesRepo } from "@agentwire-chat/storage";
import { RepoMemoryStore } from "./repo-memory-store.js";
import type { ToolPolicy } from "./tool-policy.js";
import type { ToolScope } from "./tool-scope.js";

/** The part of a pino/Fastify logger the factory uses. */
export type ToolsLogger = {
  warn(obj: object, msg: string): void;
  info?(obj: object, msg: string): void;
};

/** Options of createBuiltinServerTools. */
export type BuiltinServerToolsOptions = {
  /** Only `memories` is used (RepoMemoryStore over it). */
  repos: { memories: MemoriesRepo };
  /** WORKSPACE_ROOT: each user's files live in `<workspaceRoot>/<encoded user id>/` (created 0700 on first use). */
  workspaceRoot: string;
  /** web_fetch settings; `allowHosts` exempts `host` / `host:port` entries from the SSRF address check. */
  webFetch?: Omit<WebFetchOptions, "resolve"> & { resolve?: WebFetchOptions["resolve"] };
  /** web_search's backend (WEB_SEARCH_*); absent: no web_search in any toolbelt. */
  webSearch?: WebSearchOptions;
  /** MCP tools of the servers in the user's `policy.allowedMcpServers`; absent: no MCP tools. */
  mcp?: McpManager;
  /** The user's tool policy (the same function ChatServices.policyFor uses). */
  policyFor: (userId: string) => ToolPolicy;
  /** Where "MCP server unavailable" and similar notes go; default: nowhere. */
  logger?: ToolsLogger;
  memoryLimits?: Partial<MemoryLimits>;
  workspaceLimits?: Partial<WorkspaceLimits>;
};

/**
 * `ChatServices.serverTools` for production: per user, ask_user, run_subtask, the memory tools (over
 * SQLite), the workspace tools (list/read/write/delete/search, confined to `<workspaceRoot>/<user>`), web_fetch, web_search when a
 * backend is configured, and the MCP tools of the servers the user's policy allows. The policy and the context then decide what the turn really gets
 * (composeToolbelt); memory_enabled:false drops the memory tools there.
 */
export function createBuiltinServerTools(
  options: BuiltinServerToolsOptions,
): (scope: ToolScope) => Promise<Tool[]> {
  const store = new RepoMemoryStore(options.repos.memories);
  // web_fetch holds no per-user state: one instance serves every turn.
  const webFetch = createWebFetchTool(options.webFetch ?? {});
  const webSearch = options.webSearch && createWebSearchTool(options.webSearch);
  const unknownMcpServers = new Set<string>();
  return async (scope) => {
    const tools: Tool[] = [
      askUserTool,
      runSubtaskTool,
      ...createMemoryTools(store, scope.userId, options.memoryLimits),
      ...createWorkspaceTools({
        workspaceRoot: options.workspaceRoot,
        userId: scope.userId,
        ...(options.workspaceLimits && { limits: options.workspaceLimits }),
      }),
      webFetch,
      ...(webSearch ? [webSearch] : []),
    ];
    if (options.mcp) tools.push(...mcpTools(options, options.mcp, scope, unknownMcpServers));
    return tools;
  };
}

/**
 * The MCP tools of the servers the user's policy allows and that are connected now: never waits on a
 * handshake (McpManager connects in the background and logs each server's connection and failure).
 */
function mcpTools(
  options: BuiltinServerToolsOptions,
  mcp: McpManager,
  scope: ToolScope,
  unknown: Set<string>,
): Tool[] {
  const allowed = options.policyFor(scope.userId).allowedMcpServers;
  if (allowed.length === 0) return [];
  try {
    const { tools, unavailable } = mcp.toolsFor(scope.userId, allowed);
    for (const { server, reason } of unavailable) {
      // Only a name the MCP config lacks is news here, and it is news once, not on every turn.
      if (reason !== "not configured" || unknown.has(server)) continue;
      unknown.add(server);
      options.logger?.warn({ mcp_server: server, reason, user_id: scope.userId }, "MCP server unavailable");
    }
    return tools;
  } catch (err) {
    // A broken manager must not end the turn: the turn goes on without MCP tools.
    options.logger?.warn({ err, user_id: scope.userId }, "MCP tools unavailable");
    return [];
  }
}
