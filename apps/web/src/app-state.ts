import type { ConnectionState } from "@agentwire-chat/client";
import type { MemoryEntry, ThreadListing } from "@agentwire-chat/protocol";
import type { GraphView, NoticeLevel } from "./editor/client-tools.js";
import type { ProviderInfo } from "./net/http-api.js";
import type { Route } from "./route.js";
import type { ThreadView } from "./state/thread-view.js";

/** The header's word for the connection. */
export type ConnectionStatus = "connecting" | "open" | "reconnecting" | "closed";

export type Notice = { id: number; text: string; level: NoticeLevel };

/** Everything the page shows, in one immutable value. */
export type AppState = {
  connection: ConnectionStatus;
  /** The client's connection state in full: when offline, when the next attempt is due. */
  link: ConnectionState;
  /** The server answered 401: ask for an API token. */
  authRequired: boolean;
  route: Route;
  threads: ThreadListing[];
  /** By thread id; a message not yet given a thread lives under its draft key. */
  views: Record<string, ThreadView>;
  /** `GET /api/providers`; null until it answered (or when it failed): unknown is not "none". */
  providers: ProviderInfo[] | null;
  provider?: string;
  model?: string;
  notices: Notice[];
  /** The editor demo's workflow and the graph the agent last drew with ui_show_graph. */
  workflowId: string;
  graph?: GraphView;
  /** The scratchpad side panel (a drawer on a phone) is shown. */
  scratchpadOpen: boolean;
  /** The memory panel is shown (in the scratchpad's place). */
  memoryOpen: boolean;
  /** The user's long-term memory, `GET /api/memory`; null until loaded (when the panel opens). */
  memory: MemoryEntry[] | null;
};

/** The server answered that it has no provider: nothing can be sent until one is configured. */
export function noProvider(state: AppState): boolean {
  return state.providers !== null && state.providers.length === 0;
}

/** Where the view of a route lives in `views`. */
export function viewKey(route: Route): string {
  return route.threadId ?? `draft:${route.page}`;
}

/** The header's word for a connection state: the first attempt is connecting, any later one reconnecting. */
export function connectionStatus(link: ConnectionState): ConnectionStatus {
  if (link.status === "open" || link.status === "closed") return link.status;
  return link.status === "connecting" && link.attempt === 0 ? "connecting" : "reconnecting";
}
