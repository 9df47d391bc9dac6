/** The page's location, in the hash so static hosting needs no rewrites. */
export type Route = { page: "chat"; threadId?: string } | { page: "editor"; threadId?: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "editor") return parts[1] ? { page: "editor", threadId: parts[1] } : { page: "editor" };
  if (parts[0] === "t" && parts[1]) return { page: "chat", threadId: parts[1] };
  return { page: "chat" };
}

export function routeHash(route: Route): string {
  const id = route.threadId ? `/${encodeURIComponent(route.threadId)}` : "";
  return route.page === "editor" ? `#/editor${id}` : route.threadId ? `#/t${id}` : "#/";
}
