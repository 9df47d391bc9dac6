/** The socket URL for `url`: `ws(s)://host/ws` as given, or an `http(s)://host` base with `/ws` added. */
export function socketUrl(url: string): string {
  const u = new URL(url);
  if (u.protocol === "http:" || u.protocol === "https:") {
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    if (!u.pathname.endsWith("/ws")) u.pathname = `${u.pathname.replace(/\/$/, "")}/ws`;
  }
  return u.toString();
}

/** The HTTP base (`http(s)://host`, no trailing slash) of the server a socket URL points at. */
export function httpBase(url: string): string {
  const u = new URL(socketUrl(url));
  u.protocol = u.protocol === "wss:" ? "https:" : "http:";
  u.pathname = u.pathname.replace(/\/ws$/, "");
  u.search = "";
  u.hash = "";
  return u.toString().replace(/\/$/, "");
}
