import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  BudgetLimits,
  ContextSettings,
  type McpRetry,
  OpenAIApi,
  searchBackendNames,
  type WebSearchBackendConfig,
} from "@agentwire-chat/agents";
import {
  type AdmissionLimits,
  admissionDefaults,
  type BusySettings,
  ContextScopes,
  type ModelSettingsTable,
  parseContextScopes,
  parseModelSettingsTable,
  type SpendLimitSettings,
  type StaticToken,
} from "@agentwire-chat/websocket";
import type { z } from "zod";
import { EnvSchema } from "./env-schema.js";
import { type LoadedToolPolicyFile, readToolPolicyFile } from "./tool-policy-file.js";

export { EnvSchema };

/** A bad environment: the message names every offending variable. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Provider settings in the shape the agents' provider registry takes (API keys included). */
export interface ProviderSettings {
  openai?: { apiKey: string; baseURL?: string; defaultModel?: string; api: OpenAIApi };
  anthropic?: { apiKey: string; baseURL?: string; defaultModel?: string; promptCache: boolean };
  /**
   * OPENAI_COMPAT_ENDPOINTS; an endpoint's key comes from `<NAME>_API_KEY`, its default model from
   * `<NAME>_MODEL`, its API from `<NAME>_API`.
   */
  compatEndpoints: {
    name: string;
    baseURL: string;
    apiKey?: string;
    defaultModel?: string;
    api: OpenAIApi;
  }[];
  maxRetries?: number;
  timeoutMs?: number;
  /** PROVIDER_IDLE_TIMEOUT_MS: longest silence of a provider once its response has started. */
  idleTimeoutMs?: number;
}

/** The server's validated configuration. Secrets sit only under `providers`; never log this object whole. */
export interface Config {
  host: string;
  port: number;
  databasePath: string;
  authMode: "none" | "token";
  /** AUTH_TOKENS, hashed; the plain tokens are not kept. */
  staticTokens: StaticToken[];
  allowedOrigins: string[];
  /** Host names served besides loopback (required for any other name with AUTH_MODE=none). */
  allowedHosts: string[];
  logLevel: string;
  /** Who reads /metrics and where (docs/operations.md, "Metrics"): METRICS_TOKEN hashed, and METRICS_PORT. */
  metrics: { tokenHash: string | undefined; port: number | undefined };
  defaultProvider: string | undefined;
  defaultModel: string | undefined;
  /** Provider settings for the registry, API keys included. */
  providers: ProviderSettings;
  workspaceRoot: string;
  budget: BudgetLimits;
  /** Each turn's context: verbatim tail, budget, pinned documents, the summarizer's model. */
  context: ContextSettings;
  tools: {
    webFetchAllowHosts: string[];
    mcpConfigPath: string | undefined;
    /** MCP_CONNECT_TIMEOUT_MS and MCP_RETRY_*: one handshake's limit, a failed server's backoff. */
    mcp: { connectTimeoutMs: number; retry: McpRetry };
    clientToolTimeoutMs: number;
    /** How long a client tool call outlives its socket, for the user's next socket to answer it. */
    clientToolReconnectGraceMs: number;
    /** The tool policy's operator settings (see ToolPolicyConfig). */
    policy: {
      workspaceWrite: "allow" | "ask";
      editorMutate: "allow" | "ask";
      secrets: "off" | "ask" | "allow";
      network: "off" | "ask" | "allow";
      allowedMcpServers: string[];
    };
  };
  workflows: { enabled: boolean; pluginPath: string | undefined };
  /** web_search's backend (WEB_SEARCH_*), its API key included; undefined: web_search is off. */
  webSearch: WebSearchBackendConfig | undefined;
  /** The context scopes `chat_context.kind` selects: the built-ins, plus CONTEXT_SCOPES_FILE's. */
  scopes: ContextScopes;
  /** MODEL_SETTINGS_FILE, validated: settings per model, under each scope's `model_settings`; undefined: none. */
  modelSettings: ModelSettingsTable | undefined;
  /** TOOL_POLICY_FILE, validated: classes and MCP servers per user and group (reloaded on SIGHUP). */
  toolPolicyFile: LoadedToolPolicyFile | undefined;
  /** Where generated assets are written; defaults to the database's directory. */
  dataDir: string;
  scriptedProviderModule: string | undefined;
  /** DATABASE_URL set: rows in Postgres, with these pool settings; else the SQLite file at databasePath. */
  postgres:
    | {
        url: string;
        poolSize: number;
        /** 0: no limit. */
        statementTimeoutMs: number;
        sslMode: "disable" | "require" | "verify-full" | undefined;
      }
    | undefined;
  /** REDIS_URL set: this instance is one of several sharing turns. */
  cluster: { redisUrl: string; instanceId: string | undefined; leaseMs: number } | undefined;
  /** How long a SIGTERM lets running turns finish before interrupting them. */
  shutdownDrainMs: number;
  /** FRAME_LOG_MEMORY_BYTES: above it the frame log forgets idle threads (their frames stay stored). */
  frameLogMemoryBytes: number;
  /** What start-up does with a turn the previous process left running (TURN_RECOVERY, TURN_MAX_RECOVERIES). */
  turnRecovery: { mode: "continue" | "interrupt"; maxRecoveries: number };
  /** An OTLP endpoint set: turns are traced to `url` (the traces endpoint), as `instanceId` if set. */
  tracing: { url: string; instanceId: string | undefined } | undefined;
  /** Admission of new turns under load (MAX_LIVE_TURNS, ADMISSION_*), per instance. */
  admission: Required<AdmissionLimits>;
  /** Messages sent while a turn runs (BUSY_POLICY, QUEUE_MAX_PER_THREAD). */
  busy: BusySettings;
  /** SPEND_LIMIT_*: per user per UTC day and per thread, in USD (TOOL_POLICY_FILE sets them per user); absent when no limit is set. */
  spendLimits: SpendLimitSettings | undefined;
  /** Per-user limits (ServerLimits), counted across instances with REDIS_URL. */
  userLimits: {
    maxConnectionsPerUser: number;
    userTurnsPerMinute: number | undefined;
    userTurnBurst: number | undefined;
  };
}

/** Validates the environment; throws ConfigError naming each bad variable. Empty values count as unset. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const e = parsed.data;
  if (e.USER_TURN_BURST !== undefined && e.USER_TURNS_PER_MINUTE === undefined) {
    throw new ConfigError("invalid configuration:\n  USER_TURN_BURST: needs USER_TURNS_PER_MINUTE");
  }
  if (
    e.ADMISSION_QUEUE_MAX_PER_USER !== undefined &&
    e.ADMISSION_QUEUE_MAX_PER_USER > e.ADMISSION_QUEUE_MAX
  ) {
    throw new ConfigError(
      "invalid configuration:\n  ADMISSION_QUEUE_MAX_PER_USER: must be at most ADMISSION_QUEUE_MAX",
    );
  }
  if (e.MCP_RETRY_MAX_MS < e.MCP_RETRY_INITIAL_MS) {
    throw new ConfigError(
      "invalid configuration:\n  MCP_RETRY_MAX_MS: must be at least MCP_RETRY_INITIAL_MS",
    );
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    throw new ConfigError("invalid configuration:\n  METRICS_PORT: must differ from PORT");
  }
  const providers: ProviderSettings = {
    ...(e.OPENAI_API_KEY && {
      openai: defined({
        apiKey: e.OPENAI_API_KEY,
        baseURL: e.OPENAI_BASE_URL,
        defaultModel: e.OPENAI_MODEL,
        api: e.OPENAI_API,
      }),
    }),
    ...(e.ANTHROPIC_API_KEY && {
      anthropic: defined({
        apiKey: e.ANTHROPIC_API_KEY,
        baseURL: e.ANTHROPIC_BASE_URL,
        defaultModel: e.ANTHROPIC_MODEL,
        promptCache: e.ANTHROPIC_PROMPT_CACHE === "on",
      }),
    }),
    compatEndpoints: e.OPENAI_COMPAT_ENDPOINTS.map((endpoint) => {
      const prefix = endpoint.name.toUpperCase().replace(/-/g, "_");
      return defined({
        ...endpoint,
        apiKey: present[`${prefix}_API_KEY`],
        defaultModel: present[`${prefix}_MODEL`],
        api: compatApi(present[`${prefix}_API`], `${prefix}_API`),
      });
    }),
    ...defined({
      maxRetries: e.PROVIDER_MAX_RETRIES,
      timeoutMs: e.PROVIDER_TIMEOUT_MS,
      idleTimeoutMs: e.PROVIDER_IDLE_TIMEOUT_MS,
    }),
  };
  const context = ContextSettings.parse(present);
  const budget = budgetFor(present, context);
  const webSearch = webSearchOf(e);
  const config: Config = {
    host: e.HOST,
    port: e.PORT,
    databasePath: e.DATABASE_PATH,
    authMode: e.AUTH_MODE,
    staticTokens: e.AUTH_TOKENS,
    allowedOrigins: e.ALLOWED_ORIGINS,
    allowedHosts: e.ALLOWED_HOSTS,
    logLevel: e.LOG_LEVEL,
    metrics: { tokenHash: e.METRICS_TOKEN, port: e.METRICS_PORT },
    defaultProvider: e.DEFAULT_PROVIDER,
    defaultModel: e.DEFAULT_MODEL,
    providers,
    workspaceRoot: e.WORKSPACE_ROOT,
    budget,
    context,
    tools: {
      webFetchAllowHosts: e.WEB_FETCH_ALLOW_HOSTS,
      mcpConfigPath: e.MCP_CONFIG_PATH,
      mcp: {
        connectTimeoutMs: e.MCP_CONNECT_TIMEOUT_MS,
        retry: { initialMs: e.MCP_RETRY_INITIAL_MS, maxMs: e.MCP_RETRY_MAX_MS },
      },
      clientToolTimeoutMs: e.CLIENT_TOOL_TIMEOUT_MS,
      clientToolReconnectGraceMs: e.CLIENT_TOOL_RECONNECT_GRACE_MS ?? (e.REDIS_URL ? 10_000 : 0),
      policy: {
        workspaceWrite: e.TOOL_APPROVAL_WORKSPACE_WRITE,
        editorMutate: e.TOOL_APPROVAL_EDITOR_MUTATE,
        secrets: e.TOOL_SECRETS,
        network: e.TOOL_NETWORK,
        allowedMcpServers: e.MCP_ALLOWED_SERVERS,
      },
    },
    workflows: { enabled: e.WORKFLOWS_ENABLED, pluginPath: e.NODE_PLUGIN_PATH },
    webSearch,
    scopes: e.CONTEXT_SCOPES_FILE ? readContextScopes(e.CONTEXT_SCOPES_FILE) : ContextScopes.from(),
    modelSettings: e.MODEL_SETTINGS_FILE ? readModelSettings(e.MODEL_SETTINGS_FILE) : undefined,
    toolPolicyFile: e.TOOL_POLICY_FILE ? loadToolPolicyFile(e.TOOL_POLICY_FILE) : undefined,
    dataDir: e.DATA_DIR ?? dirname(e.DATABASE_PATH),
    scriptedProviderModule: e.AGENTWIRE_SCRIPTED_PROVIDER,
    postgres: e.DATABASE_URL
      ? {
          url: e.DATABASE_URL,
          poolSize: e.DATABASE_POOL_SIZE,
          statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
          sslMode: e.DATABASE_SSL_MODE,
        }
      : undefined,
    cluster: e.REDIS_URL
      ? { redisUrl: e.REDIS_URL, instanceId: e.INSTANCE_ID, leaseMs: e.TURN_LEASE_MS }
      : undefined,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    frameLogMemoryBytes: e.FRAME_LOG_MEMORY_BYTES,
    turnRecovery: { mode: e.TURN_RECOVERY, maxRecoveries: e.TURN_MAX_RECOVERIES },
    tracing: tracingOf(e.OTEL_EXPORTER_OTLP_ENDPOINT, e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, e.INSTANCE_ID),
    admission: {
      maxLiveTurns: e.MAX_LIVE_TURNS,
      maxLagMs: e.ADMISSION_MAX_LAG_MS,
      maxUtilization: e.ADMISSION_MAX_UTILIZATION,
      batch: e.ADMISSION_BATCH,
      queueMax: e.ADMISSION_QUEUE_MAX,
      // AUTH_MODE=none has one user: a bound per user below the total would only lower the total.
      queueMaxPerUser:
        e.ADMISSION_QUEUE_MAX_PER_USER ??
        (e.AUTH_MODE === "none"
          ? e.ADMISSION_QUEUE_MAX
          : Math.min(admissionDefaults.queueMaxPerUser, e.ADMISSION_QUEUE_MAX)),
    },
    busy: { policy: e.BUSY_POLICY, queueMax: e.QUEUE_MAX_PER_THREAD },
    spendLimits: spendLimitsOf(e),
    userLimits: {
      maxConnectionsPerUser: e.MAX_CONNECTIONS_PER_USER,
      userTurnsPerMinute: e.USER_TURNS_PER_MINUTE,
      userTurnBurst: e.USER_TURN_BURST,
    },
  };
  // Not enumerable: a config logged or serialised by mistake then carries no API keys.
  Object.defineProperty(config, "providers", { enumerable: false });
  Object.defineProperty(config, "webSearch", { enumerable: false });
  return config;
}

/**
 * The turn budget, with MAX_HISTORY_TOKENS (which caps every model call's history) never below
 * CONTEXT_MAX_TOKENS: unset, it follows CONTEXT_MAX_TOKENS up; set lower, the pair is refused rather
 * than the context budget silently capped.
 */
function budgetFor(present: Record<string, string | undefined>, context: ContextSettings): BudgetLimits {
  const budget = BudgetLimits.parse(present);
  const wanted = context.CONTEXT_MAX_TOKENS;
  if (wanted === undefined || wanted <= budget.MAX_HISTORY_TOKENS) return budget;
  if (present.MAX_HISTORY_TOKENS === undefined) return { ...budget, MAX_HISTORY_TOKENS: wanted };
  throw new ConfigError(
    `invalid configuration:\n  CONTEXT_MAX_TOKENS: ${wanted} is above MAX_HISTORY_TOKENS (${budget.MAX_HISTORY_TOKENS}), which caps every model call's history; raise MAX_HISTORY_TOKENS too, or leave it unset to follow CONTEXT_MAX_TOKENS`,
  );
}

/** What is safe to log about a config: no keys or tokens, only whether they are set. */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    host: config.host,
    port: config.port,
    database: config.postgres ? withoutPassword(config.postgres.url) : config.databasePath,
    redis: config.cluster ? withoutPassword(config.cluster.redisUrl) : undefined,
    authMode: config.authMode,
    staticTokenUsers: config.staticTokens.map((t) => t.userId),
    allowedOrigins: config.allowedOrigins,
    allowedHosts: config.allowedHosts,
    metrics: { token: config.metrics.tokenHash !== undefined, port: config.metrics.port },
    defaultProvider: config.defaultProvider,
    defaultModel: config.defaultModel,
    providers: {
      openai: config.providers.openai ? { api: config.providers.openai.api } : false,
      anthropic: config.providers.anthropic ? { promptCache: config.providers.anthropic.promptCache } : false,
      compatible: config.providers.compatEndpoints.map((e) => ({ name: e.name, api: e.api })),
    },
    workspaceRoot: config.workspaceRoot,
    budget: config.budget,
    context: config.context,
    tools: config.tools,
    admission: config.admission,
    webSearch: config.webSearch ? { backend: config.webSearch.backend, url: config.webSearch.url } : "off",
    workflows: config.workflows,
    scopes: config.scopes.kinds(),
    modelSettings: config.modelSettings?.size ?? 0,
    dataDir: config.dataDir,
    tracing: config.tracing ? withoutPassword(config.tracing.url) : undefined,
  };
}

/**
 * web_search's backend from WEB_SEARCH_*: searxng needs WEB_SEARCH_URL, brave WEB_SEARCH_API_KEY (its
 * URL defaults to the public API). A URL or key without a backend is a mistake, not "off".
 */
function webSearchOf(e: z.infer<typeof EnvSchema>): WebSearchBackendConfig | undefined {
  const bad = (line: string) => new ConfigError(`invalid configuration:\n  ${line}`);
  const { WEB_SEARCH_BACKEND: backend, WEB_SEARCH_URL: url, WEB_SEARCH_API_KEY: apiKey } = e;
  if (backend === undefined) {
    if (url === undefined && apiKey === undefined) return undefined;
    throw bad(
      `WEB_SEARCH_BACKEND: needed when WEB_SEARCH_URL or WEB_SEARCH_API_KEY is set (${searchBackendNames.join(" or ")})`,
    );
  }
  switch (backend) {
    case "searxng":
      if (url === undefined)
        throw bad("WEB_SEARCH_URL: needed with WEB_SEARCH_BACKEND=searxng (the instance's base URL)");
      if (apiKey !== undefined) throw bad("WEB_SEARCH_API_KEY: not used by WEB_SEARCH_BACKEND=searxng");
      return { backend, url };
    case "brave":
      if (apiKey === undefined) throw bad("WEB_SEARCH_API_KEY: needed with WEB_SEARCH_BACKEND=brave");
      return { backend, apiKey, ...(url !== undefined && { url }) };
  }
}

/** CONTEXT_SCOPES_FILE read and validated at start-up: a bad file stops the server with what is wrong. */
function readContextScopes(path: string): ContextScopes {
  const parsed = parseContextScopes(readJsonFile("CONTEXT_SCOPES_FILE", path));
  if (!parsed.ok) throw new ConfigError(`invalid configuration:\n  CONTEXT_SCOPES_FILE: ${parsed.message}`);
  return parsed.value;
}

/** MODEL_SETTINGS_FILE read and validated at start-up: a bad file stops the server naming the model and key. */
function readModelSettings(path: string): ModelSettingsTable {
  const parsed = parseModelSettingsTable(readJsonFile("MODEL_SETTINGS_FILE", path));
  if (!parsed.ok) throw new ConfigError(`invalid configuration:\n  MODEL_SETTINGS_FILE: ${parsed.message}`);
  return parsed.value;
}

/** An operator's JSON file, parsed; unreadable or not JSON stops the server naming the variable. */
function readJsonFile(variable: string, path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    const reason = error instanceof SyntaxError ? `not JSON (${error.message})` : "cannot be read";
    throw new ConfigError(`invalid configuration:\n  ${variable}: ${path} ${reason}`);
  }
}

/** TOOL_POLICY_FILE read and validated at start-up: a bad file stops the server naming the user or group and field. */
function loadToolPolicyFile(path: string): LoadedToolPolicyFile {
  const read = readToolPolicyFile(path);
  if (!read.ok) throw new ConfigError(`invalid configuration:\n  TOOL_POLICY_FILE: ${read.message}`);
  return { path, file: read.value };
}

/** `<NAME>_API` of a compatible endpoint: `chat` unless set, refused when it is neither. */
function compatApi(value: string | undefined, name: string): OpenAIApi {
  const parsed = OpenAIApi.safeParse(value ?? "chat");
  if (!parsed.success)
    throw new ConfigError(`invalid configuration:\n  ${name}: expected "chat" or "responses"`);
  return parsed.data;
}

/** The object without its undefined fields (the registry's schemas treat a present key as set). */
function defined<T extends Record<string, unknown>>(obj: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/**
 * Tracing when an OTLP endpoint is set. Spans go where the OTLP spec reads the variables: the
 * traces endpoint as is, else the base endpoint with `v1/traces` appended to its path.
 */
function tracingOf(base: string | undefined, traces: string | undefined, instanceId: string | undefined) {
  const url = traces ?? (base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined);
  return url ? { url, instanceId } : undefined;
}

/** A service URL as it may be logged (the schema checked it parses): any password replaced. */
function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "redacted";
  return parsed.toString();
}

/**
 * SPEND_LIMIT_*: the settings whenever a limit may be in force (the environment's, or per user in
 * TOOL_POLICY_FILE, which may set limits without an environment default).
 */
function spendLimitsOf(e: z.infer<typeof EnvSchema>): SpendLimitSettings | undefined {
  const limits = {
    ...(e.SPEND_LIMIT_USER_DAILY_USD !== undefined && { userDailyUsd: e.SPEND_LIMIT_USER_DAILY_USD }),
    ...(e.SPEND_LIMIT_THREAD_USD !== undefined && { threadUsd: e.SPEND_LIMIT_THREAD_USD }),
  };
  const any = Object.keys(limits).length > 0 || e.TOOL_POLICY_FILE !== undefined;
  return any ? { ...limits, unpriced: e.SPEND_LIMIT_UNPRICED } : undefined;
}
