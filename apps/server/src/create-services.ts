import { pathToFileURL } from "node:url";
import {
  createDefaultNodeRegistry,
  createOpenAIMediaGenerator,
  createProviderRegistry,
  JsonFilePinStore,
  loadMcpServersConfig,
  loadNodePlugin,
  McpManager,
  type NodeRegistry,
  type Provider,
  type ProviderRegistry,
} from "@agentwire-chat/agents";
import type { McpServerStatus } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";
import {
  AgentwireMetrics,
  type AgentwireServices,
  createBuiltinServerTools,
  createChatServices,
  createEditorTools,
  createTurnTracer,
  type MetricsSources,
  mcpPinsPath,
  OpenWorkflows,
  registerMcpMetrics,
  startAdmission,
  ToolPolicies,
  TurnRegistry,
  UIToolProxy,
} from "@agentwire-chat/websocket";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { reloadToolPolicy as reloadPolicyFile } from "./tool-policy-file.js";
import { startTracing } from "./tracing.js";

/** The process's services, the metrics that watch them, and what must be closed on shutdown. */
export type ProcessServices = {
  services: AgentwireServices;
  metrics: AgentwireMetrics;
  /** Every configured MCP server's state, for `GET /api/mcp`; empty without MCP_CONFIG_PATH. */
  mcpStatus: () => McpServerStatus[];
  close: () => Promise<void>;
  /** With TOOL_POLICY_FILE: reads it again into the policies every later turn uses. */
  reloadToolPolicy: (() => boolean) | undefined;
};

/** Sources the metrics read at scrape time; bound once the server exists. */
export type MetricsBinding = Pick<MetricsSources, "openSockets" | "databasePool" | "redis">;

/** Builds the services command handlers use (providers, chat turns, tools, metrics) from the config. */
export async function createServices(
  config: Config,
  logger: Logger,
  repos: Repositories,
  binding: MetricsBinding,
): Promise<ProcessServices> {
  const extra = await scriptedProvider(config, logger);
  const providers = createProviderRegistry(config.providers, {
    ...(extra && { extraProviders: [extra], extraDefaultModels: { [extra.id]: "scripted-1" } }),
  });
  const policies = new ToolPolicies(config.tools.policy, config.toolPolicyFile?.file);
  const mcp = await mcpManager(config, logger);
  // Every server a policy names (TOOL_POLICY_FILE's too), in the background and in parallel: the servers' handshakes never delay start-up or a turn.
  mcp?.connect(policies.mcpServers());
  const uiTools = new UIToolProxy({
    timeoutMs: config.tools.clientToolTimeoutMs,
    reconnectGraceMs: config.tools.clientToolReconnectGraceMs,
  });
  const turns = new TurnRegistry();
  // build_workflow's saves reach the editors that have the workflow open (as PUT's do, in the plugin).
  const openWorkflows = new OpenWorkflows();
  // Ticked by the event loop's lag and utilization from the moment the services exist.
  const { queue: admission, stop: stopAdmission } = startAdmission(config.admission);
  const workflows = await nodeRegistry(config, providers, logger);
  const media = config.providers.openai
    ? {
        generators: [
          createOpenAIMediaGenerator({
            apiKey: config.providers.openai.apiKey,
            ...(config.providers.openai.baseURL && { baseURL: config.providers.openai.baseURL }),
          }),
        ],
        dataDir: config.dataDir,
      }
    : undefined;
  const chat = createChatServices({
    turns,
    admission,
    ...(workflows && {
      editorTools: createEditorTools({
        registry: workflows,
        repos,
        providers,
        onSaved: (userId, row, replacing) => openWorkflows.saved(userId, row, replacing),
      }),
    }),
    openWorkflows,
    providers,
    limits: config.budget,
    context: config.context,
    policies,
    scopes: config.scopes,
    ...(config.modelSettings && { modelSettings: config.modelSettings }),
    busy: config.busy,
    ...(config.spendLimits && { spend: config.spendLimits }),
    defaults: { provider: config.defaultProvider, model: config.defaultModel },
    serverTools: createBuiltinServerTools({
      repos,
      workspaceRoot: config.workspaceRoot,
      webFetch: { allowHosts: config.tools.webFetchAllowHosts },
      ...(config.webSearch && { webSearch: { backend: config.webSearch } }),
      ...(mcp && { mcp }),
      policyFor: (userId) => policies.policyFor(userId),
      logger,
    }),
    clientTools: (scope) => uiTools.clientTools(scope),
  });
  const metrics = new AgentwireMetrics({
    openSockets: () => binding.openSockets(),
    // Both exist before the services (only the socket count is bound later).
    ...(binding.databasePool && { databasePool: binding.databasePool }),
    ...(binding.redis && { redis: binding.redis }),
    admission: () => ({ depth: admission.depth, live: admission.live }),
    turns: () => {
      const active = chat.turns.active();
      const suspended = active.filter((t) => t.status === "waiting_user").length;
      return { running: active.length - suspended, suspended };
    },
  });
  if (mcp) registerMcpMetrics(metrics.registry, () => mcp.status());
  chat.observer = metrics;
  admission.observer = metrics;
  // Without an OTLP endpoint no tracer exists and turns make nothing for traces.
  const tracing = config.tracing ? await startTracing(config.tracing, logger) : undefined;
  if (tracing) chat.observeTurn = createTurnTracer(tracing.tracer);
  const close = async () => {
    stopAdmission();
    await mcp?.close();
    await tracing?.shutdown();
  };
  const services: AgentwireServices = {
    chat,
    uiTools,
    ...(workflows && { workflows: { registry: workflows } }),
    ...(media && { media }),
  };
  const policyPath = config.toolPolicyFile?.path;
  const reloadToolPolicy =
    policyPath === undefined
      ? undefined
      : () => {
          const reloaded = reloadPolicyFile(policyPath, policies, logger);
          // Servers the new file names connect now, in the background, not at a user's first turn.
          if (reloaded) mcp?.connect(policies.mcpServers());
          return reloaded;
        };
  return { services, metrics, mcpStatus: () => mcp?.status() ?? [], close, reloadToolPolicy };
}

/** The node registry of saved workflows and build_workflow, unless WORKFLOWS_ENABLED=false. */
async function nodeRegistry(
  config: Config,
  providers: ProviderRegistry,
  logger: Logger,
): Promise<NodeRegistry | undefined> {
  if (!config.workflows.enabled) return undefined;
  const registry = createDefaultNodeRegistry({
    providers,
    modelDefaults: { provider: config.defaultProvider, model: config.defaultModel },
    // http.get and web_fetch share one guarded client, so they share its allow-list too.
    http: { allowHosts: config.tools.webFetchAllowHosts },
  });
  if (config.workflows.pluginPath) {
    const loaded = await loadNodePlugin(registry, config.workflows.pluginPath);
    if (!loaded.ok) throw new Error(loaded.error);
    logger.info({ registered: loaded.registered }, "node plugin loaded");
  }
  return registry;
}

/** The MCP manager when MCP_CONFIG_PATH is set; its pins live beside the database. */
async function mcpManager(config: Config, logger: Logger): Promise<McpManager | undefined> {
  const path = config.tools.mcpConfigPath;
  if (!path) return undefined;
  const loaded = await loadMcpServersConfig(path);
  if (!loaded.ok) throw new Error(loaded.reason);
  const pins = new JsonFilePinStore(mcpPinsPath(process.env, config.databasePath));
  const servers = Object.keys(loaded.value.servers);
  logger.info({ servers }, "MCP servers configured");
  const unknown = config.tools.policy.allowedMcpServers.filter((name) => !servers.includes(name));
  if (unknown.length > 0)
    logger.warn({ servers: unknown }, "MCP_ALLOWED_SERVERS names servers the MCP config lacks");
  return new McpManager({
    config: loaded.value,
    pins,
    connectTimeoutMs: config.tools.mcp.connectTimeoutMs,
    retry: config.tools.mcp.retry,
    logger: logger.child({ component: "mcp" }),
  });
}

/**
 * AGENTWIRE_SCRIPTED_PROVIDER names a module whose default export is a Provider: for tests,
 * benchmarks and demos only. Never set in production.
 */
async function scriptedProvider(config: Config, logger: Logger): Promise<Provider | undefined> {
  if (!config.scriptedProviderModule) return undefined;
  const mod = (await import(pathToFileURL(config.scriptedProviderModule).href)) as { default?: Provider };
  if (!mod.default || typeof mod.default.stream !== "function") {
    throw new Error("AGENTWIRE_SCRIPTED_PROVIDER must default-export a Provider");
  }
  logger.warn({ provider: mod.default.id }, "scripted provider enabled (tests and benchmarks only)");
  return mod.default;
}
