/**
 * Browser check against cross-site WebSocket hijacking: a request without an Origin header is not
 * from a browser page and passes; a page served by this server itself (Origin's host equals the
 * request's Host) passes; any other Origin must be on the allowlist (`*` allows every origin).
 */
export function isOriginAllowed(
  origin: string | undefined,
  allowlist: readonly string[],
  host?: string | undefined,
): boolean {
  if (origin === undefined) return true;
  if (allowlist.includes("*")) return true;
  const normalized = origin.trim().replace(/\/+$/, "").toLowerCase();
  if (host !== undefined && sameHost(normalized, host)) return true;
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
