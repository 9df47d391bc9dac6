// String work, not `URL`: React Native's URL has no setters.

const SCHEME = /^(wss?|https?):\/\/([^/?#]*)([^?#]*)([^#]*)/i;

function parts(url: string): { secure: boolean; host: string; path: string; query: string } {
  const m = SCHEME.exec(url.trim());
  if (!m) throw new TypeError(`not a ws(s):// or http(s):// URL: ${url}`);
  const scheme = (m[1] ?? "").toLowerCase();
  return {
    secure: scheme === "wss" || scheme === "https",
    host: m[2] ?? "",
    path: m[3] ?? "",
    query: m[4] ?? "",
  };
}

/** The socket URL for `url`: `ws(s)://host/ws` as given, or an `http(s)://host` base with `/ws` added. */
export function socketUrl(url: string): string {
  const p = parts(url);
  if (/^wss?:/i.test(url.trim())) return url.trim();
  return `${p.secure ? "wss" : "ws"}://${p.host}${p.path.replace(/\/+$/, "")}/ws`;
}

/** The HTTP base (`http(s)://host`, no trailing slash) of the server a socket URL or base points at. */
export function httpBase(url: string): string {
  const p = parts(url);
  const path = /^wss?:/i.test(url.trim()) ? p.path.replace(/\/ws$/, "") : p.path;
  return `${p.secure ? "https" : "http"}://${p.host}${path.replace(/\/+$/, "")}`;
}
