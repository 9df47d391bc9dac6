import type { ProvidersInfo } from "./http-api.js";

/**
 * The provider and model the page starts with: the user's remembered choice when the server still
 * has that provider, else the server's default provider (what a message naming none runs on), else
 * the first listed; the model is the remembered one, else the provider's default, else its first.
 */
export function initialModel(
  answer: ProvidersInfo,
  remembered: { provider?: string | undefined; model?: string | undefined },
): { provider?: string; model?: string } {
  const { providers, default_provider } = answer;
  const provider =
    providers.find((p) => p.id === remembered.provider) ??
    providers.find((p) => p.id === default_provider) ??
    providers[0];
  if (!provider) return {};
  const model =
    remembered.provider === provider.id ? remembered.model : (provider.default_model ?? provider.models[0]);
  return { provider: provider.id, ...(model !== undefined && { model }) };
}
