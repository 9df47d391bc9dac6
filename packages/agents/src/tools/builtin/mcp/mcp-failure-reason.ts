import type { McpServerConfig } from "./mcp-config.js";

const MAX_REASON_CHARS = 300;
// Shorter values (e.g. "1", "on") are not secrets, and masking them would garble the reason.
const MIN_SECRET_CHARS = 4;

/**
 * Why a server could not be reached, fit for operators' status pages, logs and `unavailable` lists:
 * the configured env and header values (and a URL's credentials and query values) masked, since
 * an error may echo them (a server answering 401 with the request's Authorization header).
 */
export function mcpFailureReason(err: unknown, config: McpServerConfig, timeoutMs: number): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  let reason =
    e?.code === -32001
      ? `no answer to the handshake within ${timeoutMs} ms`
      : typeof e?.message === "string"
        ? e.message
        : String(err);
  // fetch says only "fetch failed"; the socket's code (ECONNREFUSED, ENOTFOUND) is in its cause.
  if (typeof e?.cause?.code === "string") reason = `${reason} (${e.cause.code})`;
  for (const secret of secretsOf(config)) reason = reason.split(secret).join("[redacted]");
  return reason.replace(/\s+/g, " ").trim().slice(0, MAX_REASON_CHARS) || "unknown error";
}

/** Every configured value an error could echo, longest first (so a value's parts go after it). */
function secretsOf(config: McpServerConfig): string[] {
  const values: string[] = [];
  if ("command" in config) values.push(...Object.values(config.env ?? {}));
  else {
    for (const value of Object.values(config.headers ?? {})) values.push(value, ...value.split(/\s+/));
    const url = new URL(config.url);
    values.push(url.username, url.password, ...url.searchParams.values());
    values.push(decoded(url.username), decoded(url.password));
  }
  return [...new Set(values)].filter((v) => v.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray "%" in a password: the raw form is masked already
  }
}
