// A ScriptedProvider whose text deltas arrive at a pace, like a real model's stream: ScriptedProvider
// itself only has `delayMs` before a response, so this wraps it and waits `chunkIntervalMs` between
// text deltas (abort-aware). Everything else (steps, tool calls, usage, finish) is ScriptedProvider's.
import type { Provider, ProviderEvent, ProviderRequest } from "@agentwire-chat/agents";
import { ScriptedProvider, type ScriptedResponder } from "@agentwire-chat/agents/testing";

export class PacedProvider implements Provider {
  readonly id = "scripted";
  private readonly inner: ScriptedProvider;

  constructor(
    respond: ScriptedResponder,
    private readonly chunkIntervalMs: number,
  ) {
    this.inner = new ScriptedProvider(respond);
  }

  async *stream(request: ProviderRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    let first = true;
    for await (const event of this.inner.stream(request, signal)) {
      if (event.type === "text-delta") {
        if (!first && !(await sleep(this.chunkIntervalMs, signal))) return;
        first = false;
      }
      yield event;
    }
  }

  /** Drops the requests ScriptedProvider records, so they do not count as the server's memory. */
  forgetRequests(): void {
    this.inner.requests.length = 0;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
