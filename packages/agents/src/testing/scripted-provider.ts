import type { Provider } from "../providers/provider.js";
import type {
  FinishReason,
  ProviderErrorInfo,
  ProviderEvent,
  ProviderUsage,
} from "../providers/provider-event.js";
import type { ProviderRequest } from "../providers/provider-request.js";

/** A tool call in a script; the id defaults to `call_<call number>_<index>`. */
export type ScriptedToolCall = {
  id?: string;
  name: string;
  args?: unknown;
  /** Simulates arguments the provider could not parse (`args` is then undefined). */
  invalidArgs?: { raw: string; message: string };
};

/** One provider call's response. */
export type ScriptedStep = {
  /** Streamed as one text delta per string. */
  text?: string | string[];
  thinking?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: ProviderUsage;
  finish?: FinishReason;
  /** A stream failure, after the text. */
  error?: string | ProviderErrorInfo;
  /** Real-time delay before the response (benchmarks, demos; tests use `gate`). Honours the abort. */
  delayMs?: number;
  /** Waits for this promise before streaming anything: an explicit gate. */
  gate?: Promise<unknown>;
  /** After the text, waits for this promise, or until aborted: a stop in the middle of a stream. */
  hold?: Promise<unknown> | "until-aborted";
};

/** Computes a step from the request; `call` counts from 0 across the provider. */
export type ScriptedResponder = (
  request: ProviderRequest,
  call: number,
) => ScriptedStep | Promise<ScriptedStep>;

export type ScriptedProviderOptions = {
  id?: string;
  /** Used in order, one per call; after them, `respond` (if any) answers. */
  steps?: ScriptedStep[];
  respond?: ScriptedResponder;
  /** Usage reported by steps that give none; by default such steps report none. */
  usage?: ProviderUsage;
  models?: string[];
};

/**
 * A Provider that plays a script, for tests and benchmarks: the same interface as the real ones,
 * every request recorded, an unscripted call answered with an error event, `assertComplete()` to
 * fail a test that left steps unused.
 */
export class ScriptedProvider implements Provider {
  readonly id: string;
  readonly requests: ProviderRequest[] = [];
  private readonly steps: ScriptedStep[];
  private readonly respond: ScriptedResponder | undefined;
  private readonly usage: ProviderUsage | undefined;
  private readonly models: string[];
  private used = 0;
  private unexpected = 0;

  constructor(script: ScriptedStep[] | ScriptedResponder | ScriptedProviderOptions) {
    const options: ScriptedProviderOptions = Array.isArray(script)
      ? { steps: script }
      : typeof script === "function"
        ? { respond: script }
        : script;
    this.id = options.id ?? "scripted";
    this.steps = options.steps ?? [];
    this.respond = options.respond;
    this.usage = options.usage;
    this.models = options.models ?? ["scripted-model"];
  }

  /** How many calls the provider has answered. */
  get calls(): number {
    return this.requests.length;
  }

  async *stream(request: ProviderRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    const call = this.requests.length;
    this.requests.push({ ...request, messages: request.messages.slice(), tools: request.tools.slice() });
    const step = await this.stepFor(request, call);
    if (!step) {
      this.unexpected += 1;
      yield { type: "error", error: { message: `ScriptedProvider: no step scripted for call #${call + 1}` } };
      yield { type: "finish", reason: "error" };
      return;
    }
    if (step.delayMs !== undefined && !(await wait(delay(step.delayMs, signal), signal))) return;
    if (step.gate && !(await wait(step.gate, signal))) return;
    if (step.thinking) yield { type: "thinking-delta", text: step.thinking, signature: "scripted" };
    const texts = step.text === undefined ? [] : Array.isArray(step.text) ? step.text : [step.text];
    for (const text of texts) {
      if (signal.aborted) return;
      yield { type: "text-delta", text };
    }
    if (step.hold !== undefined) {
      const held = step.hold === "until-aborted" ? new Promise<never>(() => {}) : step.hold;
      if (!(await wait(held, signal))) return;
    }
    if (step.error !== undefined) {
      const error = typeof step.error === "string" ? { message: step.error } : step.error;
      yield { type: "error", error };
      yield { type: "finish", reason: "error" };
      return;
    }
    const calls = step.toolCalls ?? [];
    for (const [k, c] of calls.entries()) {
      yield {
        type: "tool-call",
        id: c.id ?? `call_${call + 1}_${k + 1}`,
        name: c.name,
        args: c.invalidArgs ? undefined : (c.args ?? {}),
        ...(c.invalidArgs && { invalidArgs: c.invalidArgs }),
      };
    }
    const usage = step.usage ?? this.usage;
    if (usage) yield { type: "usage", usage };
    yield { type: "finish", reason: step.finish ?? (calls.length > 0 ? "tool_calls" : "stop") };
  }

  async listModels(): Promise<string[]> {
    return this.models.slice();
  }

  /** Throws when scripted steps were left unused or calls came that no step answered. */
  assertComplete(): void {
    const left = this.steps.length - this.used;
    if (left > 0 || this.unexpected > 0) {
      throw new Error(
        `ScriptedProvider: ${left} scripted step(s) unused, ${this.unexpected} unexpected call(s) ` +
          `(${this.requests.length} calls made)`,
      );
    }
  }

  private async stepFor(request: ProviderRequest, call: number): Promise<ScriptedStep | undefined> {
    if (this.used < this.steps.length) {
      this.used += 1;
      return this.steps[this.used - 1];
    }
    return this.respond ? this.respond(request, call) : undefined;
  }
}

/** Resolves true when `p` settles first, false when the signal fires first. */
async function wait(p: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort!: () => void;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([p.then(() => true), aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  });
}
