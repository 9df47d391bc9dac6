import type { ScratchpadItem, StoredMessage, ThreadSummary } from "@agentwire/protocol";

/** One configured provider, as `GET /api/providers` lists them. */
export type ProviderInfo = { id: string; models: string[]; default_model?: string };

/** The server answered 401: the page needs (another) API token. */
export class AuthRequiredError extends Error {
  constructor() {
    super("an API token is required");
  }
}

/** The HTTP side of the API: history and configuration. Same origin; Bearer token when one is set. */
export function createHttpApi(getToken: () => string | undefined, base = "") {
  async function get<T>(path: string, key: string): Promise<T[]> {
    const token = getToken();
    const response = await fetch(base + path, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (response.status === 401) throw new AuthRequiredError();
    if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
    return unwrap<T>(await response.json(), key);
  }
  return {
    threads: () => get<ThreadSummary>("/api/threads", "threads"),
    messages: (threadId: string) =>
      get<StoredMessage>(`/api/threads/${encodeURIComponent(threadId)}/messages`, "messages"),
    providers: () => get<ProviderInfo>("/api/providers", "providers"),
    scratchpad: (threadId: string) =>
      get<ScratchpadItem>(`/api/threads/${encodeURIComponent(threadId)}/scratchpad`, "items"),
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
