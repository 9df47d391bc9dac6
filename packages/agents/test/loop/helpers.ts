import { z } from "zod";
import {
  type BudgetLimits,
  createLoopContext,
  defineTool,
  drainLoop,
  type LlmCallRecord,
  type LoopCommon,
  type LoopContext,
  type LoopEvent,
  type LoopResult,
  ok,
  runAgentLoop,
  type StartFrom,
  type Tool,
  type TurnBudgetOptions,
} from "../../src/index.js";
import type { ScriptedProvider } from "../../src/testing/index.js";

/** A promise with its resolver outside: the tests' only way to order concurrent work. */
export type Deferred<T = void> = { promise: Promise<T>; resolve: (value: T) => void };
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export type Run = { events: LoopEvent[]; result: LoopResult; records: LlmCallRecord[]; ctx: LoopContext };

/** Runs a root loop to its end with a fresh context, collecting events and ledger records. */
export async function runLoop(
  provider: ScriptedProvider,
  tools: Tool[],
  options: {
    limits?: Partial<BudgetLimits>;
    budget?: TurnBudgetOptions;
    params?: Partial<Omit<LoopCommon, "provider" | "tools" | "ctx"> & Omit<StartFrom, "kind">>;
    ctx?: LoopContext;
    onEvent?: (event: LoopEvent) => void;
  } = {},
): Promise<Run> {
  const records: LlmCallRecord[] = [];
  const ctx =
    options.ctx ??
    createLoopContext(options.limits ?? {}, {
      wallClockTimer: false,
      ...options.budget,
      onLlmCall: (r) => records.push(r),
    });
  const events: LoopEvent[] = [];
  const {
    model = "gpt-4o",
    systemPrompt = "You are a test agent.",
    history = [{ role: "user", content: "hello" }],
    ...common
  } = options.params ?? {};
  const result = await drainLoop(
    runAgentLoop({
      provider,
      from: {
        kind: "start",
        model,
        systemPrompt,
        history,
      },
      tools,
      ctx,
      ...common,
    }),
    (e) => {
      events.push(e);
      options.onEvent?.(e);
    },
  );
  return { events, result, records, ctx };
}

/** A tool that returns its `value` argument. */
export const echoTool = defineTool({
  name: "echo",
  description: "Echo a value.",
  args: z.object({ value: z.string() }),
  permissionClass: "safe",
  execute: async ({ value }) => ok(value),
});

/** Tool updates only. */
export const toolUpdates = (events: LoopEvent[]) =>
  events.filter((e): e is Extract<LoopEvent, { type: "tool_call_update" }> => e.type === "tool_call_update");
