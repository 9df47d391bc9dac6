/** The `fetch` signature both SDKs accept as a client option. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Wraps fetch so the SDKs never sleep longer than `maxRetryDelayMs` before a retry: a response that
 * asks for a longer wait gets `x-should-retry: false`, so the failure is reported at once instead.
 */
export function boundedRetryFetch(maxRetryDelayMs: number, inner: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    const delay = requestedDelayMs(response.headers);
    if (delay === undefined || delay <= maxRetryDelayMs) return response;
    const headers = new Headers(response.headers);
    headers.set("x-should-retry", "false");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The wait a failed response asks for (`retry-after-ms`, `retry-after` seconds or date), in ms. */
export function requestedDelayMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms)) return ms;
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? date - Date.now() : undefined;
}
