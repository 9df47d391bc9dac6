import type { HostAllowlist } from "./host-allowlist.js";

/**
 * Browser check against cross-site WebSocket hijacking: a request without an Origin header is not
 * from a browser page and passes; any Origin on the allowlist passes (`*` allows every origin); a
 * page served by this server itself passes when its origin is the request's Host and that Host is
 * one this server answers to (loopback or ALLOWED_HOSTS). The request's own Host alone proves
 * nothing: under DNS rebinding the attacker's page and Host agree.
 */
export function isOriginAllowed(
  origin: string | undefined,
  allowlist: readonly string[],
  host: string | undefined,
  hostAllowed: HostAllowlist,
): boolean {
  if (origin === undefined) return true;
  if (allowlist.includes("*")) return true;
  const normalized = origin.trim().replace(/\/+$/, "").toLowerCase();
  if (host !== undefined && hostAllowed(host) && sameHost(normalized, host)) return true;
  return allowlist.some((allowed) => allowed.replace(/\/+$/, "").toLowerCase() === normalized);
}

function sameHost(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}
