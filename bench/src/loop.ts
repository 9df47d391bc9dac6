// `pnpm bench loop`: the agent loop's own overhead against the Vercel AI SDK and the OpenAI Agents SDK,
// on the same scripted, instant workloads in the same process. Writes bench/results/loop.json.
import { writeFileSync } from "node:fs";
import {
  createLoopContext,
  defineTool,
  drainLoop,
  ok,
  type ProviderRequest,
  runAgentLoop,
  runSubtaskTool,
  type Tool,
} from "@agentwire-chat/agents";
import { ScriptedProvider, type ScriptedStep } from "@agentwire-chat/agents/testing";
import { z } from "zod";
import { benchStart, machineInfo } from "./_machine.js";
import { aiSdkToolLoop, aiSdkTree, openAiAgentsToolLoop, openAiAgentsTree } from "./_peers.js";

const start = benchStart();

const ITERATIONS = 100;
const DEPTH = 3;
const FANOUT = 2;
const RUNS = Number(process.argv[2] ?? 15);
/** Runs per timed batch of the steady figure. */
const BATCH = 10;
// Model turns of the tree: every non-leaf level answers twice (calls, then text), leaves once.
const TREE_TURNS = Array.from({ length: DEPTH + 1 }, (_, d) => FANOUT ** d * (d < DEPTH ? 2 : 1)).reduce(
  (a, b) => a + b,
);

const echo: Tool = defineTool({
  name: "echo",
  description: "echo",
  args: z.object({ value: z.string() }),
  permissionClass: "safe",
  execute: async ({ value }) => ok(value),
});

async function agentwireToolLoop(): Promise<number> {
  const provider = new ScriptedProvider(
    (_r: ProviderRequest, call: number): ScriptedStep =>
      call >= ITERATIONS
        ? { text: "done", usage: { inputTokens: 3, outputTokens: 2 } }
        : {
            text: `step ${call}`,
            toolCalls: [{ name: "echo", args: { value: "x" } }],
            usage: { inputTokens: 3, outputTokens: 2 },
          },
  );
  return runAgentwire(provider, [echo]);
}

async function agentwireTree(): Promise<number> {
  const provider = new ScriptedProvider((r: ProviderRequest): ScriptedStep => {
    const first = r.messages[0];
    const task = first?.role === "user" && typeof first.content === "string" ? first.content : "";
    const d = task === "hello" ? 0 : Number(task.split(" ")[1]);
    if (d === DEPTH || r.messages.length > 1)
      return { text: `answer ${d}`, usage: { inputTokens: 3, outputTokens: 2 } };
    return {
      toolCalls: Array.from({ length: FANOUT }, (_, i) => ({
        name: "run_subtask",
        args: { title: `t${i}`, instructions: `level ${d + 1} ${i}` },
      })),
      usage: { inputTokens: 3, outputTokens: 2 },
    };
  });
  return runAgentwire(provider, [runSubtaskTool], { MAX_DEPTH: DEPTH });
}

async function runAgentwire(provider: ScriptedProvider, tools: Tool[], limits = {}): Promise<number> {
  const ctx = createLoopContext(
    { MAX_TOTAL_LLM_CALLS: 1000, MAX_ITERATIONS_PER_LEVEL: ITERATIONS + 1, ...limits },
    { wallClockTimer: false },
  );
  let events = 0;
  const result = await drainLoop(
    runAgentLoop({
      provider,
      from: {
        kind: "start",
        model: "gpt-4o",
        systemPrompt: "bench",
        history: [{ role: "user", content: "hello" }],
      },
      tools,
      ctx,
    }),
    () => {
      events += 1;
    },
  );
  if (result.status !== "complete") throw new Error(`agentwire run ended ${result.status}`);
  return events;
}

/**
 * Two medians in µs per run, after warm-up. `steady`: runs back to back in batches, the median
 * batch's mean, as a server runs turns. `afterGc`: each run timed alone right after a forced full
 * GC. That GC discards optimized code that embedded the previous run's objects ("weak objects"
 * deopts), so the run pays its re-optimisation (~1.5 ms, the same for every framework): a cost a
 * server pays once per major GC, not once per turn.
 */
async function measure(fn: () => Promise<unknown>): Promise<{ steady: number; afterGc: number }> {
  for (let i = 0; i < 30; i++) await fn();
  const batches: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    for (let j = 0; j < BATCH; j++) await fn();
    batches.push(((performance.now() - t0) * 1000) / BATCH);
  }
  const cold: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    const t0 = performance.now();
    await fn();
    cold.push((performance.now() - t0) * 1000);
  }
  return { steady: median(batches), afterGc: median(cold) };
}

const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const round = (n: number) => Math.round(n * 100) / 100;

const loopEvents = await agentwireToolLoop();
const treeEvents = await agentwireTree();
const perIteration = async (fn: () => Promise<unknown>, units: number) => {
  const m = await measure(fn);
  return { steady: m.steady / units, afterGc: m.afterGc / units };
};
const loop = {
  agentwire: await perIteration(agentwireToolLoop, ITERATIONS),
  ai_sdk: await perIteration(() => aiSdkToolLoop(ITERATIONS), ITERATIONS),
  openai_agents: await perIteration(() => openAiAgentsToolLoop(ITERATIONS), ITERATIONS),
};
const tree = {
  agentwire: await perIteration(agentwireTree, TREE_TURNS),
  ai_sdk: await perIteration(() => aiSdkTree(DEPTH, FANOUT), TREE_TURNS),
  openai_agents: await perIteration(() => openAiAgentsTree(DEPTH, FANOUT), TREE_TURNS),
};
type Figures = Record<"agentwire" | "ai_sdk" | "openai_agents", { steady: number; afterGc: number }>;
const pick = (w: Figures, k: "steady" | "afterGc") => ({
  agentwire: round(w.agentwire[k]),
  ai_sdk: round(w.ai_sdk[k]),
  openai_agents: round(w.openai_agents[k]),
  ai_sdk_ratio: round(w.ai_sdk[k] / w.agentwire[k]),
  openai_agents_ratio: round(w.openai_agents[k] / w.agentwire[k]),
});

const report = {
  unit: "microseconds per iteration (one model turn and its tool calls)",
  method: `steady: ${RUNS} batches of ${BATCH} runs back to back after 30 warm-up runs, the median batch's mean; after_forced_gc: ${RUNS} runs each timed alone right after global.gc(), the median (it includes re-optimising the code the GC discarded)`,
  workloads: {
    tool_loop_100: pick(loop, "steady"),
    tree_3_levels_parallel: pick(tree, "steady"),
  },
  after_forced_gc: {
    tool_loop_100: pick(loop, "afterGc"),
    tree_3_levels_parallel: pick(tree, "afterGc"),
  },
  agentwire_per_event_us: {
    tool_loop_100: round((loop.agentwire.steady * ITERATIONS) / loopEvents),
    tree_3_levels_parallel: round((tree.agentwire.steady * TREE_TURNS) / treeEvents),
  },
  details: {
    runs: RUNS,
    tool_loop_100: `${ITERATIONS} turns each calling one echo tool, then a final text turn; ${loopEvents} agentwire events per run`,
    tree_3_levels_parallel: `root → ${FANOUT} parallel subtasks per level down to depth ${DEPTH} (${TREE_TURNS} model turns); ${treeEvents} agentwire events per run`,
    agentwire:
      "runAgentLoop with ScriptedProvider (streaming: text deltas, tool calls, usage), zod-validated tool, run_subtask child loops",
    ai_sdk:
      "streamText + MockLanguageModelV3 (simulateReadableStream, no delays), stopWhen stepCountIs; subtasks emulated as agent-as-tool: a tool whose execute runs a nested streamText",
    openai_agents:
      "run() (non-streamed) with a scripted Model implementing getResponse, tracing disabled; subtasks emulated with agent.asTool()",
  },
  machine: machineInfo(start),
  date: new Date().toISOString(),
};
writeFileSync(new URL("../results/loop.json", import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
