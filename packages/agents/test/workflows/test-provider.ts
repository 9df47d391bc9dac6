import type { Provider } from "../../src/providers/provider.js";
import type { ProviderEvent } from "../../src/providers/provider-event.js";
import type { ProviderRequest } from "../../src/providers/provider-request.js";

/**
 * A minimal scripted provider: one list of events per call, every request recorded. Stands in
 * until `ScriptedProvider` lands in src/testing (another engineer is writing it); replace then.
 */
export function scriptedProvider(id: string, script: ProviderEvent[][]) {
  const requests: ProviderRequest[] = [];
  const provider: Provider = {
    id,
    async *stream(request) {
      requests.push(request);
      const events = script[requests.length - 1];
      if (!events) throw new Error(`${id}: unexpected call #${requests.length}`);
      yield* events;
    },
  };
  return { provider, requests };
}

/** Text deltas followed by a stop, as one scripted answer. */
export const answer = (...parts: string[]): ProviderEvent[] => [
  ...parts.map((text) => ({ type: "text-delta" as const, text })),
  { type: "finish", reason: "stop" },
];

/** A registry-like resolver over fixed providers, with the same refusal shape as the real one. */
export function providersOf(...list: Provider[]) {
  return {
    resolve(
      choice: { provider?: string | undefined; model?: string | undefined },
      defaults: { provider?: string | undefined; model?: string | undefined },
    ) {
      const id = choice.provider ?? defaults.provider;
      const provider = list.find((p) => p.id === id);
      if (!provider) return { ok: false as const, message: `unknown provider "${id}"` };
      const model = choice.model ?? defaults.model;
      if (!model) return { ok: false as const, message: `no model for provider "${id}"` };
      return { ok: true as const, provider, model };
    },
  };
}
