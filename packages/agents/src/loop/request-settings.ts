import type { ModelSettings } from "../providers/model-settings.js";
import type { ProviderRequest } from "../providers/provider-request.js";

/**
 * The output cap and settings a level's model calls send: the operator's `max_output_tokens`
 * (scope or model table) replaces the caller's `maxTokens`; the other settings travel as `settings`.
 */
export function requestSettings(params: {
  maxTokens?: number | undefined;
  settings?: ModelSettings | undefined;
}): Pick<ProviderRequest, "maxTokens" | "settings"> {
  const { max_output_tokens, ...call } = params.settings ?? {};
  const maxTokens = max_output_tokens ?? params.maxTokens;
  return {
    ...(maxTokens !== undefined && { maxTokens }),
    ...(Object.keys(call).length > 0 && { settings: call }),
  };
}
