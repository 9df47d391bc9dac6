/** What `until` does when the condition is slow: how long it tries, how often it looks. */
export type UntilOptions = { timeoutMs?: number; everyMs?: number };

/**
 * Waits on a condition nothing signals (a row, a file, a Redis key, a port): resolves with the first
 * value `check` returns that is neither `false` nor `undefined`, polled every `everyMs` (no fixed
 * sleep). Fails after `timeoutMs` naming `what` it waited for; an error thrown by `check` fails at once.
 */
export async function until<T>(
  check: () => T | false | undefined | Promise<T | false | undefined>,
  what: string,
  { timeoutMs = 10_000, everyMs = 10 }: UntilOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== false && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
