import { PROTOCOL_V1, PROTOCOL_V1_NESTED } from "@agentwire/protocol/subprotocols";
import WebSocket from "ws";

/**
 * The subprotocols the CLI offers: it renders nesting (subtask text feeds its status area), with the
 * plain protocol after it for servers that do not know the capability.
 */
const CLI_SUBPROTOCOLS = [PROTOCOL_V1_NESTED, PROTOCOL_V1];

const NO_PROVIDER =
  "no provider configured on the server: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_COMPAT_ENDPOINTS";

/**
 * The socket URL for what the user typed: `http(s)://` becomes `ws(s)://`, and a bare host gets `/ws`
 * (the server upgrades only there).
 */
export function socketUrl(input: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  else if (url.protocol !== "ws:" && url.protocol !== "wss:") return undefined;
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/ws";
  return url;
}

/** Opens the socket; on failure a message fit to show (never the URL, which may hold a token). */
export async function openSocket(
  url: URL,
  token: string | undefined,
): Promise<{ ok: true; ws: WebSocket } | { ok: false; message: string }> {
  const ws = new WebSocket(url, CLI_SUBPROTOCOLS, {
    ...(token && { headers: { authorization: `Bearer ${token}` } }),
  });
  const failure = await new Promise<string | undefined>((resolve) => {
    ws.once("open", () => resolve(undefined));
    ws.once("error", (error: NodeJS.ErrnoException) =>
      resolve(
        error.code === "ECONNREFUSED"
          ? `nothing answers at ${url.host}: start the server (pnpm start), or give its address with --url or AGENTWIRE_URL`
          : error.message,
      ),
    );
    ws.once("unexpected-response", (_request, response) =>
      resolve(
        response.statusCode === 401
          ? "server refused: HTTP 401 (it wants an API token: --token or AGENTWIRE_TOKEN)"
          : `server refused: HTTP ${response.statusCode}`,
      ),
    );
  });
  if (failure === undefined) return { ok: true, ws };
  ws.terminate();
  return { ok: false, message: failure };
}

/**
 * Asks the server which providers it has (`GET /api/providers`) and returns what to tell the user
 * before the first message: that there is none, or that the one asked for is not among them.
 * Anything else (an older server, a refused request) says nothing: the socket reports those.
 */
export async function providerProblem(
  url: URL,
  token: string | undefined,
  wanted: string | undefined,
): Promise<string | undefined> {
  const api = new URL(url);
  api.protocol = url.protocol === "wss:" ? "https:" : "http:";
  api.pathname = url.pathname.endsWith("/ws")
    ? `${url.pathname.slice(0, -3)}/api/providers`
    : "/api/providers";
  let providers: { id: string }[];
  try {
    const response = await fetch(api, {
      ...(token && { headers: { authorization: `Bearer ${token}` } }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { providers?: unknown };
    if (!Array.isArray(body.providers)) return undefined;
    providers = body.providers as { id: string }[];
  } catch {
    return undefined;
  }
  if (providers.length === 0) return NO_PROVIDER;
  if (wanted && !providers.some((p) => p.id === wanted)) {
    return `provider "${wanted}" is not configured on the server; it has: ${providers.map((p) => p.id).join(", ")}`;
  }
  return undefined;
}
