const NO_PROVIDER =
  "no provider configured on the server: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_COMPAT_ENDPOINTS";

/** A provider as `GET /api/providers` lists it. */
type Listed = { id: string; models?: string[]; default_model?: string };

/**
 * Asks the server which providers it has (`GET /api/providers` under `base`, the server's http(s)
 * address) and returns what to tell the user before the first message, naming the flags and
 * variables that fix it: there is no provider, the one asked for is not among them, none was asked
 * for and the server has no default, or the provider has no default model and no `--model` was given.
 * Anything else (an older server, a refused request) says nothing: the socket reports those.
 */
export async function providerProblem(
  base: string,
  token: string | undefined,
  wanted: { provider?: string | undefined; model?: string | undefined },
): Promise<string | undefined> {
  let answer: { providers: Listed[]; default_provider?: string };
  try {
    const response = await fetch(`${base}/api/providers`, {
      ...(token && { headers: { authorization: `Bearer ${token}` } }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { providers?: unknown; default_provider?: unknown };
    if (!Array.isArray(body.providers)) return undefined;
    answer = {
      providers: body.providers as Listed[],
      ...(typeof body.default_provider === "string" && { default_provider: body.default_provider }),
    };
  } catch {
    return undefined;
  }
  const { providers } = answer;
  if (providers.length === 0) return NO_PROVIDER;
  const ids = providers.map((p) => p.id).join(", ");
  if (wanted.provider && !providers.some((p) => p.id === wanted.provider)) {
    return `provider "${wanted.provider}" is not configured on the server; it has: ${ids}`;
  }
  const id = wanted.provider ?? answer.default_provider;
  if (id === undefined) {
    return `the server has no default provider: pass --provider P (it has: ${ids}), or set DEFAULT_PROVIDER (and DEFAULT_MODEL) on the server`;
  }
  const provider = providers.find((p) => p.id === id);
  if (wanted.model || !provider || provider.default_model) return undefined;
  const models = provider.models?.length ? ` (it lists: ${listed(provider.models)})` : "";
  const variable = `${id.toUpperCase().replace(/-/g, "_")}_MODEL`;
  return `provider "${id}" has no default model: pass --model M${models}, or set ${variable} on the server`;
}

const MODELS_SHOWN = 8;

/** The first few model names, and how many more. */
function listed(models: string[]): string {
  const more = models.length - MODELS_SHOWN;
  return models.slice(0, MODELS_SHOWN).join(", ") + (more > 0 ? ` and ${more} more` : "");
}
