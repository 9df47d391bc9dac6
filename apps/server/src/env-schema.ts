import {
  BudgetLimits,
  CompatEndpointsSchema,
  ContextSettings,
  DEFAULT_MCP_RETRY,
  OpenAIApi,
  searchBackendNames,
} from "@agentwire-chat/agents";
import { OnBusy } from "@agentwire-chat/protocol";
import { DEFAULT_FRAME_LOG_MEMORY_BYTES } from "@agentwire-chat/storage";
import { admissionDefaults, hashApiToken, parseHost, type StaticToken } from "@agentwire-chat/websocket";
import { z } from "zod";
import { doc } from "./config-groups.js";

const optionalText = z.string().min(1).optional();
const optionalUrl = z.url({ protocol: /^https?$/ }).optional();
const LIST = { type: "comma-separated list" };
const list = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
const commaList = () => z.string().transform(list).default([]);

const AuthTokens = z
  .string()
  .transform((value, ctx) => {
    const tokens: StaticToken[] = [];
    for (const item of list(value)) {
      const colon = item.indexOf(":");
      const userId = item.slice(0, colon);
      const token = item.slice(colon + 1);
      if (colon <= 0 || token.length < 16 || !/^[A-Za-z0-9_.@-]{1,64}$/.test(userId)) {
        // The entry itself is never echoed: it contains a secret.
        ctx.addIssue({
          code: "custom",
          message: "expected user:token entries (token at least 16 characters)",
        });
        return z.NEVER;
      }
      tokens.push({ userId, tokenHash: hashApiToken(token) });
    }
    return tokens;
  })
  .default([]);

/**
 * A URL with credentials in it (a database, Redis): checked to parse here, with a message that never
 * repeats the value, since Node's URL error carries the whole input (the password included) and
 * would reach stderr or a log.
 */
function serviceUrl(scheme: RegExp, message: string) {
  return z.string().refine((value) => {
    if (!scheme.test(value)) return false;
    try {
      new URL(value);
      return true;
    } catch {
      return false;
    }
  }, `${message} that parses (percent-encode special characters in the password); the value is not shown`);
}

/** An integer variable within bounds (ports, counts, milliseconds). */
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** An amount in USD (a spend limit). */
const usd = () => z.coerce.number().positive().max(1_000_000_000);
/** A positive integer variable (a time limit, a count) with no upper bound. */
const positiveInt = () => z.coerce.number().int().positive();
const allowOrAsk = z.enum(["allow", "ask"]);
const toolClass = z.enum(["off", "ask", "allow"]);

/**
 * Every environment variable the server reads through its schema, with its default and its
 * documentation (`.meta({ group, description })`): docs/configuration.md and `--help` are rendered
 * from it (config-reference.ts). Variables read elsewhere are in env-outside-schema.ts.
 */
export const EnvSchema = z.object({
  HOST: z
    .string()
    .min(1)
    .default("127.0.0.1")
    .meta(
      doc(
        "server",
        "Address to bind. The container image sets 0.0.0.0; with AUTH_MODE=none on a non-loopback address the server logs a warning.",
      ),
    ),
  PORT: int(0, 65535).default(8787).meta(doc("server", "TCP port to listen on (0 picks a free one).")),
  DATABASE_PATH: z
    .string()
    .min(1)
    .default("./data/agentwire.db")
    .meta(
      doc(
        "server",
        "SQLite file (parent directories are created; migrations are applied at start-up). Not used when DATABASE_URL is set.",
        { type: "path" },
      ),
    ),
  DATABASE_URL: serviceUrl(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional()
    .meta(
      doc(
        "server",
        "Set (postgres://user:password@host:5432/db): rows live in Postgres instead of the SQLite file at DATABASE_PATH, migrations applied at start-up under an advisory lock. The password is never logged.",
        { type: "postgres:// URL" },
      ),
    ),
  DATABASE_POOL_SIZE: int(1, 1_000)
    .default(10)
    .meta(doc("server", "Most connections one instance opens to Postgres.")),
  DATABASE_STATEMENT_TIMEOUT_MS: int(0, 3_600_000)
    .default(30_000)
    .meta(
      doc(
        "server",
        "Postgres statement_timeout of the pool's connections, in milliseconds (0: none); migrations run without it.",
      ),
    ),
  DATABASE_SSL_MODE: z
    .enum(["disable", "require", "verify-full"])
    .optional()
    .meta(
      doc(
        "server",
        "TLS to Postgres: disable, require (certificate not checked) or verify-full. Unset: from the URL; an sslmode in DATABASE_URL wins.",
      ),
    ),
  REDIS_URL: serviceUrl(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional()
    .meta(
      doc(
        "cluster",
        "Set: several instances share turns through Redis (the frame log, turn leases, the command bus); they must share the database too (Postgres). Unset: one instance.",
        { type: "redis:// URL" },
      ),
    ),
  INSTANCE_ID: optionalText.meta(
    doc(
      "cluster",
      "This instance's name in leases, on the command bus and in traces. Unset: random per process.",
    ),
  ),
  TURN_LEASE_MS: int(100, 600_000)
    .default(15_000)
    .meta(
      doc(
        "cluster",
        "A running turn's lease, in milliseconds, renewed every third of it; a dead instance's turns are taken over by a survivor within about one and a half leases.",
      ),
    ),
  SHUTDOWN_DRAIN_MS: int(0, 3_600_000)
    .default(0)
    .meta(
      doc(
        "server",
        "On SIGTERM, how long running turns may finish, in milliseconds. Then, with REDIS_URL and TURN_RECOVERY=continue, chat turns are handed over to another instance; otherwise they are interrupted.",
      ),
    ),
  TURN_RECOVERY: z
    .enum(["continue", "interrupt"])
    .default("continue")
    .meta(
      doc(
        "turns",
        "A turn running when the process died: continue resumes it at start-up from its last completed step; interrupt ends it interrupted.",
      ),
    ),
  TURN_MAX_RECOVERIES: int(0, 1_000)
    .default(3)
    .meta(
      doc(
        "turns",
        "A turn continued this many times after crashes is ended interrupted instead, so a turn that crashes the server cannot loop. A rolling deploy's handover does not count.",
      ),
    ),
  FRAME_LOG_MEMORY_BYTES: int(64 * 1024, 2 ** 40)
    .default(DEFAULT_FRAME_LOG_MEMORY_BYTES)
    .meta(
      doc(
        "turns",
        "Bytes of frames (JSON length) the frame log holds in memory; past it the least recently used idle threads leave memory (their frames stay stored and are read back on resume).",
      ),
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl.meta(
    doc(
      "observability",
      "Set: every turn is traced over OTLP/HTTP to <endpoint>/v1/traces. Unset (and no traces endpoint): the OpenTelemetry SDK is not loaded.",
    ),
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl.meta(
    doc(
      "observability",
      "Set: spans go to this URL as is (over OTEL_EXPORTER_OTLP_ENDPOINT's), and tracing is on.",
    ),
  ),
  MAX_CONNECTIONS_PER_USER: int(1, 1_000_000)
    .default(16)
    .meta(
      doc(
        "limits",
        "Open sockets per user (across instances with REDIS_URL); more are refused before the upgrade with HTTP 429.",
      ),
    ),
  USER_TURNS_PER_MINUTE: int(1, 1_000_000)
    .optional()
    .meta(
      doc(
        "limits",
        "Turns a user may start per minute, sustained (across instances with REDIS_URL); over it the frame gets rate_limited. Unset: no limit.",
      ),
    ),
  USER_TURN_BURST: int(1, 1_000_000)
    .optional()
    .meta(
      doc(
        "limits",
        "Turns a user may start at once above the sustained rate; needs USER_TURNS_PER_MINUTE. Unset: USER_TURNS_PER_MINUTE.",
        { computed: true },
      ),
    ),
  BUSY_POLICY: OnBusy.default("reject").meta(
    doc(
      "turns",
      "What a chat_message that names no on_busy does while a turn runs on its thread: reject (busy), queue (waits for the next turn), steer (joins the running turn) or interrupt (stops the turn and starts).",
    ),
  ),
  QUEUE_MAX_PER_THREAD: int(1, 1000)
    .default(10)
    .meta(
      doc(
        "turns",
        "Messages a thread's queue holds at most (queued, steering or interrupting); past it the message is busy and nothing is stored.",
      ),
    ),
  MAX_LIVE_TURNS: int(1, 1_000_000)
    .default(admissionDefaults.maxLiveTurns)
    .meta(
      doc(
        "limits",
        "Admitted chat turns running at once on this instance (waiting on the user does not count); more wait in the admission queue.",
      ),
    ),
  ADMISSION_MAX_LAG_MS: int(0, 60_000)
    .default(admissionDefaults.maxLagMs)
    .meta(
      doc(
        "limits",
        "While the event loop's lag over the last 20 ms is above this many milliseconds, no turn is admitted; 0: no lag brake.",
      ),
    ),
  ADMISSION_MAX_UTILIZATION: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(admissionDefaults.maxUtilization)
    .meta(
      doc(
        "limits",
        "While the event loop's utilization (0 to 1, averaged over about 100 ms) is above this, no turn is admitted; 0: no utilization brake.",
      ),
    ),
  ADMISSION_BATCH: int(1, 1_000_000)
    .default(admissionDefaults.batch)
    .meta(doc("limits", "Most new turns admitted per 20 ms tick, so a burst of starts spreads out.")),
  ADMISSION_QUEUE_MAX: int(0, 1_000_000)
    .default(admissionDefaults.queueMax)
    .meta(doc("limits", "New turns waiting at once on this instance; past it overloaded. 0: nothing waits.")),
  ADMISSION_QUEUE_MAX_PER_USER: int(0, 1_000_000)
    .optional()
    .meta(
      doc(
        "limits",
        `New turns one user may have waiting at once; past it overloaded. At most ADMISSION_QUEUE_MAX. Unset: ${admissionDefaults.queueMaxPerUser} (capped at ADMISSION_QUEUE_MAX), or ADMISSION_QUEUE_MAX with AUTH_MODE=none (one user).`,
        { computed: true },
      ),
    ),
  AUTH_MODE: z
    .enum(["none", "token"])
    .default("none")
    .meta(
      doc(
        "auth",
        "none: every connection is user local (a server on your own machine). token: every /ws and /api request needs an API token. The container image sets token.",
      ),
    ),
  AUTH_TOKENS: AuthTokens.meta(
    doc(
      "auth",
      "Static API tokens, user:token,user:token (tokens at least 16 characters); hashed at start-up and never logged. Tokens can also be stored with `agentwire token create`.",
      { type: "comma-separated user:token list" },
    ),
  ),
  ALLOWED_ORIGINS: commaList().meta(
    doc(
      "auth",
      "Browser origins allowed to open /ws (* allows every origin); others are refused with 403, requests without Origin are not affected. Unset: only the web client this server serves itself.",
      LIST,
    ),
  ),
  ALLOWED_HOSTS: z
    .string()
    .transform(list)
    .refine(
      (hosts) => hosts.every((h) => parseHost(h) !== undefined),
      "every entry must be a host name[:port]",
    )
    .default([])
    .meta(
      doc(
        "auth",
        "Host names (name or name:port) served besides loopback; with AUTH_MODE=none any other Host is refused with 403 (a DNS rebinding guard).",
        LIST,
      ),
    ),
  METRICS_TOKEN: z
    .string()
    // The value is never echoed: it is a secret.
    .refine((token) => token.length >= 16 && token.length <= 512, "must be 16 to 512 characters")
    .transform((token) => hashApiToken(token))
    .optional()
    .meta(
      doc(
        "observability",
        "A bearer token (16 to 512 characters) that reads /metrics (API tokens work too with AUTH_MODE=token); hashed at start-up, never logged. Set, it is required even with AUTH_MODE=none.",
        { type: "secret text" },
      ),
    ),
  METRICS_PORT: int(0, 65535)
    .optional()
    .meta(
      doc(
        "observability",
        "Set: /metrics is served only on 127.0.0.1 at this port (0 picks one), not on PORT; it must differ from PORT. Unset: on PORT.",
      ),
    ),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .meta(
      doc(
        "observability",
        "Log level of the JSON lines on stdout. On a terminal the server logs plain lines at warn unless this is set.",
      ),
    ),
  DEFAULT_PROVIDER: optionalText.meta(
    doc(
      "providers",
      "Provider used when a chat_message names none (openai, anthropic, or a compatible endpoint's name). Unset: no default provider.",
    ),
  ),
  DEFAULT_MODEL: optionalText.meta(
    doc(
      "providers",
      "Model used when a chat_message names none (on the default provider). Unset: that provider's default model.",
    ),
  ),
  OPENAI_API_KEY: optionalText.meta(
    doc("providers", "Enables the openai provider. Secret: never logged. Unset: no openai provider.", {
      type: "secret text",
    }),
  ),
  OPENAI_BASE_URL: optionalUrl.meta(
    doc("providers", "http(s) URL of an OpenAI-API proxy or gateway. Unset: the SDK's default."),
  ),
  OPENAI_MODEL: optionalText.meta(doc("providers", "Default model of the openai provider.")),
  OPENAI_API: OpenAIApi.default("chat").meta(
    doc(
      "providers",
      "Which OpenAI API the openai provider speaks: chat (Chat Completions) or responses (the Responses API: reasoning carried across tool calls, summaries streamed).",
    ),
  ),
  ANTHROPIC_API_KEY: optionalText.meta(
    doc("providers", "Enables the anthropic provider. Secret: never logged. Unset: no anthropic provider.", {
      type: "secret text",
    }),
  ),
  ANTHROPIC_BASE_URL: optionalUrl.meta(
    doc("providers", "http(s) URL of an Anthropic-API proxy. Unset: the SDK's default."),
  ),
  ANTHROPIC_MODEL: optionalText.meta(doc("providers", "Default model of the anthropic provider.")),
  ANTHROPIC_PROMPT_CACHE: z
    .enum(["on", "off"])
    .default("on")
    .meta(
      doc(
        "providers",
        "on: every Anthropic request marks cache_control breakpoints (tools, system prompt, latest messages); off: no prompt caching.",
      ),
    ),
  // The registry's own parser: one definition of the format.
  OPENAI_COMPAT_ENDPOINTS: CompatEndpointsSchema.default([]).meta(
    doc(
      "providers",
      "OpenAI-compatible servers, name=url,name=url (e.g. ollama=http://127.0.0.1:11434/v1); each name becomes a provider id, with <NAME>_API_KEY, <NAME>_MODEL and <NAME>_API read for it.",
      { type: "comma-separated name=url list" },
    ),
  ),
  PROVIDER_MAX_RETRIES: int(0, 10)
    .optional()
    .meta(
      doc(
        "providers",
        "Retries of a provider call before its stream starts. Unset: 2 (the provider registry's default).",
        {
          computed: true,
        },
      ),
    ),
  PROVIDER_TIMEOUT_MS: positiveInt()
    .optional()
    .meta(
      doc(
        "providers",
        "Time to response headers per provider call, in milliseconds. Unset: 60000 (the provider registry's default).",
        { computed: true },
      ),
    ),
  PROVIDER_IDLE_TIMEOUT_MS: positiveInt()
    .optional()
    .meta(
      doc(
        "providers",
        "Longest silence of a provider once its response has started, in milliseconds; the call is then aborted (and made once more if no text reached the client). Unset: 60000.",
        { computed: true },
      ),
    ),
  WORKSPACE_ROOT: z
    .string()
    .min(1)
    .default("./data/workspace")
    .meta(
      doc(
        "tools",
        "Directory the workspace tools (list_files, read_file, write_file, ...) are confined to.",
        {
          type: "path",
        },
      ),
    ),
  WORKFLOWS_ENABLED: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((v) => v === "true" || v === "1")
    .meta(doc("tools", "Saved workflows, /api/workflows and build_workflow in editor context.")),
  NODE_PLUGIN_PATH: optionalText.meta(
    doc("tools", "A module that registers extra workflow node types. Unset: the built-in ones only.", {
      type: "path",
    }),
  ),
  DATA_DIR: optionalText.meta(
    doc("server", "Where generated media assets are written. Unset: the database's directory.", {
      type: "path",
      computed: true,
    }),
  ),
  WEB_FETCH_ALLOW_HOSTS: commaList().meta(
    doc(
      "tools",
      "host or host:port that web_fetch and the workflow node http.get may reach although they resolve to private addresses; everything else private is refused.",
      LIST,
    ),
  ),
  WEB_SEARCH_BACKEND: z
    .enum(searchBackendNames)
    .optional()
    .meta(
      doc(
        "tools",
        "Set: the web_search tool (class network), through this backend. Unset: no web_search in any toolbelt.",
      ),
    ),
  WEB_SEARCH_URL: optionalUrl.meta(
    doc(
      "tools",
      "The SearXNG base URL (required with searxng); with brave, replaces https://api.search.brave.com.",
    ),
  ),
  // The value is never echoed: it is a secret.
  WEB_SEARCH_API_KEY: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .meta(
      doc(
        "tools",
        "The Brave subscription token (required with brave, refused with searxng); never logged.",
        {
          type: "secret text",
        },
      ),
    ),
  MCP_CONFIG_PATH: optionalText.meta(
    doc(
      "tools",
      "JSON file of operator-configured MCP servers (format in docs/tools.md). Unset: no MCP servers.",
      {
        type: "path",
      },
    ),
  ),
  CONTEXT_SCOPES_FILE: optionalText.meta(
    doc(
      "context",
      "JSON file of the context scopes clients select with chat_context.kind, beside thread and editor (format in docs/scopes.md); a bad file stops the server.",
      { type: "path" },
    ),
  ),
  MODEL_SETTINGS_FILE: optionalText.meta(
    doc(
      "context",
      "JSON file of model settings per model (temperature, max_output_tokens, reasoning_effort, parallel_tool_calls); a bad file stops the server.",
      { type: "path" },
    ),
  ),
  SPEND_LIMIT_USER_DAILY_USD: usd()
    .optional()
    .meta(
      doc(
        "limits",
        "What one user's model calls may cost per UTC day, in USD, across threads and instances. Unset: no limit (TOOL_POLICY_FILE may set one per user).",
      ),
    ),
  SPEND_LIMIT_THREAD_USD: usd()
    .optional()
    .meta(doc("limits", "What one thread's model calls may cost in all, in USD. Unset: no limit.")),
  SPEND_LIMIT_UNPRICED: z
    .enum(["allow", "refuse"])
    .default("allow")
    .meta(
      doc(
        "limits",
        "With a spend limit in force, a turn on a model without a known price: allow (its calls count $0) or refuse.",
      ),
    ),
  TOOL_POLICY_FILE: optionalText.meta(
    doc(
      "tools",
      "JSON file of tool classes, MCP servers and spend limits per user and group, over the TOOL_* defaults; reread on SIGHUP. Unset: every user gets the environment's policy.",
      { type: "path" },
    ),
  ),
  MCP_ALLOWED_SERVERS: commaList().meta(
    doc("tools", "Servers of MCP_CONFIG_PATH the turns may use; a server not listed is never started.", LIST),
  ),
  MCP_CONNECT_TIMEOUT_MS: int(100, 600_000)
    .default(20_000)
    .meta(
      doc(
        "tools",
        "How long one MCP handshake may take, in milliseconds; a server past it is failed and retried with backoff.",
      ),
    ),
  MCP_RETRY_INITIAL_MS: int(10, 3_600_000)
    .default(DEFAULT_MCP_RETRY.initialMs)
    .meta(
      doc("tools", "A failed MCP server's first backoff, in milliseconds, doubled per failure in a row."),
    ),
  MCP_RETRY_MAX_MS: int(10, 3_600_000)
    .default(DEFAULT_MCP_RETRY.maxMs)
    .meta(
      doc(
        "tools",
        "The cap of a failed MCP server's backoff, in milliseconds; at least MCP_RETRY_INITIAL_MS.",
      ),
    ),
  TOOL_APPROVAL_WORKSPACE_WRITE: allowOrAsk
    .default("allow")
    .meta(doc("tools", "ask: every write_file and delete_file waits for the user's approval.")),
  TOOL_APPROVAL_EDITOR_MUTATE: allowOrAsk
    .default("allow")
    .meta(doc("tools", "ask: editor tools (build_workflow, client UI tools) wait for the user's approval.")),
  TOOL_SECRETS: toolClass.default("off").meta(doc("tools", "The secrets tool class: off, ask or allow.")),
  TOOL_NETWORK: toolClass
    .default("allow")
    .meta(
      doc(
        "tools",
        "The network tool class (web_fetch, web_search, MCP servers by default): allow, ask (each call waits for approval) or off.",
      ),
    ),
  CLIENT_TOOL_TIMEOUT_MS: positiveInt()
    .default(60_000)
    .meta(doc("tools", "How long a client UI tool call may take, in milliseconds.")),
  CLIENT_TOOL_RECONNECT_GRACE_MS: int(0, 3_600_000)
    .optional()
    .meta(
      doc(
        "tools",
        "How long a client UI tool call outlives its socket, in milliseconds, for the user's next socket to answer it. Unset: 10000 with REDIS_URL, else 0.",
        { computed: true },
      ),
    ),
  AGENTWIRE_SCRIPTED_PROVIDER: optionalText.meta(
    doc("server", "Tests and benchmarks only: a module default-exporting a scripted provider.", {
      type: "path",
    }),
  ),
  // The per-turn budget: the agents' own schema, whose keys are the variable names.
  ...BudgetLimits.shape,
  // The context budget and rolling summary (CONTEXT_*, SUMMARIZER_*), the same way.
  ...ContextSettings.shape,
});
