import type { ThinkingBlock } from "../providers/model-message.js";
import type { Provider } from "../providers/provider.js";
import type {
  FinishReason,
  ProviderErrorInfo,
  ProviderEvent,
  ProviderUsage,
  ToolCallEvent,
} from "../providers/provider-event.js";
import type { ProviderRequest } from "../providers/provider-request.js";
import { SettleWait } from "../providers/settle-wait.js";
import type { ChunkEvent } from "../turn/loop-event.js";
import { ABORTED } from "./abortable.js";
import { AbortableStream } from "./abortable-stream.js";

/** Everything one model turn produced. */
export type ModelTurn = {
  text: string;
  thinking: ThinkingBlock[];
  toolCalls: ToolCallEvent[];
  usage?: ProviderUsage;
  finish?: FinishReason;
  error?: ProviderErrorInfo;
  aborted: boolean;
  /** When the first text or thinking delta arrived (the site's clock). */
  firstTokenAt?: number;
};

/** Where a model call's text goes: its node, and who may take a chunk past the generators. */
export type ChunkSite = {
  parentId: string | null;
  depth: number;
  /** Takes a chunk directly (true) or declines it (false: it is yielded). */
  offer?: (event: ChunkEvent) => boolean;
  /** The clock `firstTokenAt` is read from; performance.now by default. */
  now?: () => number;
};

/**
 * Streams one provider call, yielding text and thinking chunks as they come. A pushing provider's
 * chunks are offered to `site.offer` within the read that carried them; only those it declines (and
 * every chunk after one it declined, to keep their order) are yielded. The reader is returned itself,
 * not wrapped in a generator of its own: every chunk yielded crosses one generator fewer.
 */
export function streamModelTurn(
  provider: Provider,
  request: ProviderRequest,
  signal: AbortSignal,
  site: ChunkSite,
): AsyncGenerator<ChunkEvent, ModelTurn> {
  const fold = new TurnFold(site);
  return provider.streamTo
    ? pushed(provider, request, signal, fold)
    : pulled(provider, request, signal, fold);
}

/** Folds provider events into the call's ModelTurn and the chunks to relay. */
class TurnFold {
  readonly turn: ModelTurn = { text: "", thinking: [], toolCalls: [], aborted: false };
  /** Chunks declined by `offer` (or behind one that was), in order, for the generator to yield. */
  readonly queued: ChunkEvent[] = [];
  private block: ThinkingBlock | null = null;
  /** Set once the call is over for the consumer: a provider that ignores its signal is not heard. */
  closed = false;

  private readonly clock: () => number;

  constructor(private readonly site: ChunkSite) {
    this.clock = site.now ?? (() => performance.now());
  }

  /** Takes one event; returns a chunk to relay, or undefined. */
  add(event: ProviderEvent): ChunkEvent | undefined {
    const { turn, site } = this;
    switch (event.type) {
      case "text-delta":
        turn.firstTokenAt ??= this.clock();
        turn.text += event.text;
        return { type: "chunk", content: event.text, parent_id: site.parentId, depth: site.depth };
      case "thinking-delta": {
        turn.firstTokenAt ??= this.clock();
        this.block ??= { text: "" };
        const block = this.block;
        block.text += event.text;
        if (
          event.signature !== undefined ||
          event.redactedData !== undefined ||
          event.reasoning !== undefined
        ) {
          if (event.signature !== undefined) block.signature = event.signature;
          if (event.redactedData !== undefined) block.redactedData = event.redactedData;
          if (event.reasoning !== undefined) block.reasoning = event.reasoning;
          turn.thinking.push(block);
          this.block = null;
        }
        return event.text
          ? {
              type: "chunk",
              content: event.text,
              thinking: true,
              parent_id: site.parentId,
              depth: site.depth,
            }
          : undefined;
      }
      case "tool-call":
        turn.toolCalls.push(event);
        return undefined;
      case "usage":
        turn.usage = { ...turn.usage, ...event.usage };
        return undefined;
      case "finish":
        turn.finish = event.reason;
        return undefined;
      case "error":
        turn.error = event.error;
        return undefined;
    }
  }

  /** Relays a chunk past the generators when nothing waits ahead of it; else queues it. */
  relay(chunk: ChunkEvent): void {
    if (this.queued.length > 0 || !this.site.offer?.(chunk)) this.queued.push(chunk);
  }

  /** The Provider contract makes failures events; a throw is a provider bug, still not the turn's crash. */
  fail(provider: Provider, error: unknown): void {
    this.turn.error = { message: `provider ${provider.id} failed: ${messageOf(error)}` };
  }

  end(aborted: boolean): ModelTurn {
    this.closed = true;
    if (this.block) this.turn.thinking.push(this.block);
    if (aborted) this.turn.aborted = true;
    return this.turn;
  }
}

/** A pushing provider: its events arrive by callback; the generator only yields what was declined. */
async function* pushed(
  provider: Provider,
  request: ProviderRequest,
  signal: AbortSignal,
  fold: TurnFold,
): AsyncGenerator<ChunkEvent, ModelTurn> {
  const waiting = new SettleWait();
  const { notify } = waiting;
  try {
    waiting.watch(
      (provider.streamTo as NonNullable<Provider["streamTo"]>)(request, signal, (event) => {
        if (fold.closed) return;
        const chunk = fold.add(event);
        if (!chunk) return;
        const before = fold.queued.length;
        fold.relay(chunk);
        if (fold.queued.length > before) notify();
      }),
    );
    // A provider that ignores its signal still cannot hold the loop: the abort wakes the wait.
    signal.addEventListener("abort", notify, { once: true });
    for (;;) {
      // Taken off the queue only once the consumer asks for more: until then it is on its way, and a
      // chunk read meanwhile must queue behind it rather than be offered past it.
      while (fold.queued.length > 0 && !signal.aborted) {
        yield fold.queued[0] as ChunkEvent;
        fold.queued.shift();
      }
      if (signal.aborted) break;
      if (waiting.finished) {
        if (waiting.failure) throw waiting.failure.error;
        break;
      }
      await waiting.wait();
    }
  } catch (error) {
    fold.fail(provider, error);
  } finally {
    fold.closed = true;
    signal.removeEventListener("abort", notify);
  }
  return fold.end(signal.aborted);
}

/** A provider read as an async iterable (tests' scripted providers, other adapters). */
async function* pulled(
  provider: Provider,
  request: ProviderRequest,
  signal: AbortSignal,
  fold: TurnFold,
): AsyncGenerator<ChunkEvent, ModelTurn> {
  let iterator: AsyncIterator<ProviderEvent> | undefined;
  let stream: AbortableStream<ProviderEvent> | undefined;
  try {
    iterator = provider.stream(request, signal)[Symbol.asyncIterator]();
    stream = new AbortableStream(iterator, signal);
    for (;;) {
      const next = await stream.next();
      if (next === ABORTED || next.done) break;
      const chunk = fold.add(next.value);
      if (!chunk) continue;
      fold.relay(chunk);
      while (fold.queued.length > 0) {
        yield fold.queued[0] as ChunkEvent;
        fold.queued.shift();
      }
    }
  } catch (error) {
    fold.fail(provider, error);
  } finally {
    stream?.dispose();
    if (signal.aborted) void Promise.resolve(iterator?.return?.()).catch(() => {});
  }
  return fold.end(signal.aborted);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
