import type {
  MemoryEntry,
  QueuedMessage,
  ScratchpadItem,
  StoredMessage,
  ThreadSummary,
  TurnCost,
} from "@agentwire-chat/protocol";
import { threadListingFromWire } from "@agentwire-chat/protocol/turn-status-on-wire";

/** One configured provider, as `GET /api/providers` lists them. */
export type ProviderInfo = { id: string; models: string[]; default_model?: string };

/** `GET /api/providers`: the providers, and the one the server uses for a message that names none. */
export type ProvidersInfo = { providers: ProviderInfo[]; default_provider?: string };

/** The server answered 401: the page needs (another) API token. */
export class AuthRequiredError extends Error {
  constructor() {
    super("an API token is required");
  }
}

/** The HTTP side of the API: history and configuration. Same origin; Bearer token when one is set. */
export function createHttpApi(getToken: () => string | undefined, base = "") {
  async function getBody(path: string): Promise<unknown> {
    const token = getToken();
    const response = await fetch(base + path, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (response.status === 401) throw new AuthRequiredError();
    if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
    return response.json();
  }
  async function get<T>(path: string, key: string): Promise<T[]> {
    return unwrap<T>(await getBody(path), key);
  }
  async function del(path: string): Promise<void> {
    const token = getToken();
    const response = await fetch(base + path, {
      method: "DELETE",
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (response.status === 401) throw new AuthRequiredError();
    if (!response.ok) throw new Error(`DELETE ${path}: HTTP ${response.status}`);
  }
  const thread = (threadId: string) => `/api/threads/${encodeURIComponent(threadId)}`;
  return {
    threads: async () => (await get<ThreadSummary>("/api/threads", "threads")).map(threadListingFromWire),
    /** The thread's current branch (or, with `leaf`, the branch through that message), root first. */
    messages: (threadId: string, leaf?: string) =>
      get<StoredMessage>(
        `${thread(threadId)}/messages${leaf ? `?leaf=${encodeURIComponent(leaf)}` : ""}`,
        "messages",
      ),
    /** The thread's queued messages, in the order they will start. */
    queue: (threadId: string) => get<QueuedMessage>(`${thread(threadId)}/queue`, "queued"),
    providers: async (): Promise<ProvidersInfo> => {
      const body = await getBody("/api/providers");
      const named = (body as { default_provider?: unknown } | null)?.default_provider;
      return {
        providers: unwrap<ProviderInfo>(body, "providers"),
        ...(typeof named === "string" && { default_provider: named }),
      };
    },
    scratchpad: (threadId: string) =>
      get<ScratchpadItem>(`/api/threads/${encodeURIComponent(threadId)}/scratchpad`, "items"),
    clearScratchpad: (threadId: string) => del(`${thread(threadId)}/scratchpad`),
    /** What each turn of the thread cost, from the server's ledger. */
    usage: (threadId: string) => get<TurnCost>(`${thread(threadId)}/usage`, "turns"),
    memory: () => get<MemoryEntry>("/api/memory", "entries"),
    forgetMemory: (key: string) => del(`/api/memory/${encodeURIComponent(key)}`),
    clearMemory: () => del("/api/memory"),
  };
}

export type HttpApi = ReturnType<typeof createHttpApi>;

/** Lists come bare (`[...]`) or wrapped (`{threads: [...]}`); the server answers the wrapped form. */
export function unwrap<T>(body: unknown, key: string): T[] {
  if (Array.isArray(body)) return body as T[];
  if (typeof body === "object" && body !== null) {
    const inner = (body as Record<string, unknown>)[key];
    if (Array.isArray(inner)) return inner as T[];
  }
  throw new Error(`unexpected response: no ${key} list`);
}
