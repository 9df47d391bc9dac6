import type { Config } from "./config.js";

/** What the summary needs besides the config: facts known only once the server listens. */
export interface StartFacts {
  /** Where the server listens (RunningServer.url). */
  url: string;
  /** The web client's folder, or undefined when it was not built. */
  webDist: string | undefined;
  /** The level logs are written at on this terminal, and whether LOG_LEVEL chose it. */
  logLevel: string;
  logLevelFromEnv: boolean;
}

const NO_PROVIDER =
  "no provider configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_COMPAT_ENDPOINTS (see README)";

/**
 * The few lines a person reads after `pnpm start` on a terminal: what to open, who may connect, which
 * models answer, where the rows go. Built from non-secret fields only (service URLs reduced to host
 * and path), so no key, token or password can reach it.
 */
export function startSummary(config: Config, facts: StartFacts): string {
  const rows: [string, string][] = [
    ["open", facts.webDist ? openUrl(facts.url) : "web client not built: run `pnpm build`, then restart"],
    ["auth", authLine(config)],
    ["providers", providersLine(config)],
    ["database", databaseLine(config)],
  ];
  if (config.cluster) rows.push(["cluster", `Redis ${serviceAddress(config.cluster.redisUrl)}`]);
  rows.push(["logs", logsLine(facts)]);
  const table = rows.map(([label, text]) => `  ${label.padEnd(10)} ${text}`).join("\n");
  return `\nagentwire is listening on ${facts.url}\n\n${table}\n\nCtrl-C stops it.\n\n`;
}

/** A wildcard address is not one a browser can open: the loopback name of the same family is. */
function openUrl(url: string): string {
  const u = new URL(url);
  if (u.hostname === "0.0.0.0") u.hostname = "127.0.0.1";
  else if (u.hostname === "[::]") u.hostname = "[::1]";
  else return url;
  return `${u.origin} (listening on every address)`;
}

function authLine(config: Config): string {
  if (config.authMode === "none") {
    return 'none: every connection is user "local" (served only under loopback names and ALLOWED_HOSTS)';
  }
  const users = config.staticTokens.map((t) => t.userId);
  const fromEnv = users.length > 0 ? `; AUTH_TOKENS has tokens for ${users.join(", ")}` : "";
  return `token: create one with \`pnpm agentwire token create --user NAME\`${fromEnv}`;
}

function providersLine(config: Config): string {
  const { openai, anthropic, compatEndpoints } = config.providers;
  // Provider id → how it is shown.
  const configured = new Map<string, string>();
  const defaultModels = new Map<string, string | undefined>();
  if (openai) defaultModels.set("openai", openai.defaultModel);
  if (anthropic) defaultModels.set("anthropic", anthropic.defaultModel);
  for (const [name, model] of defaultModels) configured.set(name, withModel(name, model));
  for (const e of compatEndpoints) configured.set(e.name, `${e.name} (${new URL(e.baseURL).host})`);
  if (config.scriptedProviderModule) configured.set("scripted", "scripted (tests only)");
  if (configured.size === 0) return NO_PROVIDER;
  const labels = [...configured.values()].join(", ");
  const provider = config.defaultProvider;
  if (!provider)
    return `${labels}; no default (set DEFAULT_PROVIDER and DEFAULT_MODEL, or choose one in the client)`;
  if (!configured.has(provider)) return `${labels}; DEFAULT_PROVIDER=${provider} is not one of them`;
  const model = config.defaultModel ?? defaultModels.get(provider);
  return `${labels}; default ${provider} / ${model ?? "no model (set DEFAULT_MODEL)"}`;
}

function withModel(name: string, model: string | undefined): string {
  return model ? `${name} (${model})` : name;
}

function databaseLine(config: Config): string {
  return config.postgres
    ? `Postgres ${serviceAddress(config.postgres.url)}`
    : `SQLite ${config.databasePath}`;
}

/** host:port/name of a service URL (config checked it parses): never its user or password. */
function serviceAddress(url: string): string {
  const u = new URL(url);
  return `${u.host}${u.pathname === "/" ? "" : u.pathname}`;
}

function logsLine(facts: StartFacts): string {
  if (facts.logLevelFromEnv)
    return `LOG_LEVEL=${facts.logLevel}, as plain lines below (JSON when not a terminal)`;
  return "warnings and errors only, as plain lines below (LOG_LEVEL=info for more; JSON when not a terminal)";
}
