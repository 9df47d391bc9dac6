/**
 * Which `Host` names this server answers to. Without it, DNS rebinding turns any web page into a
 * client of a loopback server: the attacker's name resolves to 127.0.0.1, and the browser, seeing
 * one origin, sends `Host: rebind.evil.example`. Loopback names are always allowed; any other must
 * be configured (ALLOWED_HOSTS). An entry without a port allows the name on any port.
 */
export type HostAllowlist = (host: string | undefined) => boolean;

const LOOPBACK_NAMES = new Set(["127.0.0.1", "[::1]", "localhost"]);

// A Host header is a name or an IP literal and an optional port, nothing else: no userinfo, path or
// spaces that a URL parser would quietly drop.
const HOST_PATTERN =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;

/** A Host header (or an ALLOWED_HOSTS entry) split into its lowercased name and port, or undefined when malformed. */
export function parseHost(host: string): { name: string; port?: string } | undefined {
  const match = HOST_PATTERN.exec(host.trim());
  if (!match) return undefined;
  const port = match[1];
  const name = (port === undefined ? host.trim() : host.trim().slice(0, -port.length - 1))
    .toLowerCase()
    .replace(/\.$/, "");
  return port === undefined ? { name } : { name, port };
}

/** True for 127.0.0.1, [::1] and localhost, with or without a port. */
export function isLoopbackHost(host: string): boolean {
  const parsed = parseHost(host);
  return parsed !== undefined && LOOPBACK_NAMES.has(parsed.name);
}

/** The check for a request's Host: loopback names, and the configured ones. */
export function hostAllowlist(allowedHosts: readonly string[]): HostAllowlist {
  const entries = allowedHosts.map((entry) => {
    const parsed = parseHost(entry);
    if (!parsed) throw new Error(`ALLOWED_HOSTS: ${JSON.stringify(entry)} is not a host name[:port]`);
    return parsed;
  });
  return (host) => {
    if (host === undefined) return false;
    const parsed = parseHost(host);
    if (!parsed) return false;
    if (LOOPBACK_NAMES.has(parsed.name)) return true;
    return entries.some((e) => e.name === parsed.name && (e.port === undefined || e.port === parsed.port));
  };
}
