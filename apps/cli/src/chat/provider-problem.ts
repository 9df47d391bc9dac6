const NO_PROVIDER =
  "no provider configured on the server: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_COMPAT_ENDPOINTS";

/**
 * Asks the server which providers it has (`GET /api/providers` under `base`, the server's http(s)
 * address) and returns what to tell the user before the first message: that there is none, or that
 * the one asked for is not among them. Anything else (an older server, a refused request) says
 * nothing: the socket reports those.
 */
export async function providerProblem(
  base: string,
  token: string | undefined,
  wanted: string | undefined,
): Promise<string | undefined> {
  let providers: { id: string }[];
  try {
    const response = await fetch(`${base}/api/providers`, {
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
