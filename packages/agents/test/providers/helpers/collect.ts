import type { Provider, ProviderEvent, ProviderRequest } from "../../../src/index.js";

/** Drains a provider stream into an array. */
export async function collect(
  provider: Provider,
  request: ProviderRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream(request, signal)) events.push(event);
  return events;
}

/** The concatenated text deltas. */
export function textOf(events: ProviderEvent[]): string {
  return events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
}

/** Events of one type. */
export function ofType<T extends ProviderEvent["type"]>(events: ProviderEvent[], type: T) {
  return events.filter((e): e is Extract<ProviderEvent, { type: T }> => e.type === type);
}

/** A minimal request. */
export function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model: "test-model",
    systemPrompt: "You are terse.",
    messages: [{ role: "user", content: "Hi" }],
    tools: [],
    ...overrides,
  };
}
