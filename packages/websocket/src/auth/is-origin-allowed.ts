/**
 * Browser check against cross-site WebSocket hijacking: a request without an Origin header is not
 * from a browser page and passes; one with an Origin must be on the allowlist (`*` allows every origin).
 */
export function isOriginAllowed(origin: string | undefined, allowlist: readonly string[]): boolean {
  if (origin === undefined) return true;
  if (allowlist.includes("*")) return true;
  const normalized = origin.trim().replace(/\/+$/, "").toLowerCase();
  return allowlist.some((allowed) => allowed.replace(/\/+$/, "").toLowerCase() === normalized);
}
