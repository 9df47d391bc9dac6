// The server process of `pnpm bench concurrency`, forked by concurrency.ts with an IPC channel.
// It measures itself: RSS/heap (after gc() when asked), active turns, and event-loop delay with
// perf_hooks.monitorEventLoopDelay. Options arrive as a JSON argv[2].
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { PacedProvider } from "./_paced-provider.js";
import { startBenchServer } from "./_server.js";

export type ServerOptions = {
  subtasks: number;
  subtaskChunks: number;
  finalChunks: number;
  chunkMs: number;
  firstTokenMs: number;
  lagResolutionMs: number;
  /** The admission queue with the server's defaults (see startBenchServer). */
  admission: boolean;
};
export type Request = {
  id: number;
  op: "snapshot" | "start-window" | "end-window" | "stop";
  /** start-window: the number of turns that counts as full load. */
  fullLoadTurns?: number;
};
export type Snapshot = { rss: number; heapUsed: number; activeTurns: number };
export type Window = {
  lag_ms: { p50: number; p99: number; max: number; mean: number };
  peak_rss: number;
  peak_heap_used: number;
  rss_at_max_active: number;
  heap_used_at_max_active: number;
  max_active_turns: number;
  /** Once, when `fullLoadTurns` turns are active: gc() (lag histogram paused around it), then measured. */
  at_full_load_after_gc?: Snapshot;
  samples: number;
};

const options = JSON.parse(process.argv[2] ?? "{}") as ServerOptions;
const send = (message: object) => process.send?.(message);
const usage = { inputTokens: 50, outputTokens: 20 };
const textOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};

// Root: a model call that fans out to `subtasks` parallel run_subtask calls, then a final answer.
// Subtask: one streamed answer. Every call waits `firstTokenMs` (time to first token) first.
const provider = new PacedProvider((request): ScriptedStep => {
  const task = textOf(request);
  if (task.startsWith("subtask ")) {
    return { delayMs: options.firstTokenMs, text: Array(options.subtaskChunks).fill(" word"), usage };
  }
  if (request.messages.length === 1) {
    return {
      delayMs: options.firstTokenMs,
      text: "Splitting the work.",
      toolCalls: Array.from({ length: options.subtasks }, (_, i) => ({
        name: "run_subtask",
        args: { title: `part ${i + 1}`, instructions: `subtask ${i + 1}: research part ${i + 1}` },
      })),
      usage,
    };
  }
  return { delayMs: options.firstTokenMs, text: Array(options.finalChunks).fill(" word"), usage };
}, options.chunkMs);

const server = await startBenchServer({ provider, admission: options.admission });
const histogram = monitorEventLoopDelay({ resolution: options.lagResolutionMs });
const gc = (globalThis as { gc?: () => void }).gc;
const ns = (v: number) => Math.max(0, v / 1e6 - options.lagResolutionMs);

let window: Window | undefined;
let sampler: NodeJS.Timeout | undefined;

function snapshot(): Snapshot {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, activeTurns: server.chat.turns.active().length };
}

process.on("message", (request: Request) => {
  switch (request.op) {
    case "snapshot":
      provider.forgetRequests();
      gc?.();
      gc?.();
      send({ id: request.id, snapshot: snapshot() });
      return;
    case "start-window": {
      const w: Window = {
        lag_ms: { p50: 0, p99: 0, max: 0, mean: 0 },
        peak_rss: 0,
        peak_heap_used: 0,
        rss_at_max_active: 0,
        heap_used_at_max_active: 0,
        max_active_turns: 0,
        samples: 0,
      };
      window = w;
      histogram.reset();
      histogram.enable();
      sampler = setInterval(() => {
        const s = snapshot();
        w.samples += 1;
        w.peak_rss = Math.max(w.peak_rss, s.rss);
        w.peak_heap_used = Math.max(w.peak_heap_used, s.heapUsed);
        if (s.activeTurns >= w.max_active_turns) {
          w.max_active_turns = s.activeTurns;
          w.rss_at_max_active = s.rss;
          w.heap_used_at_max_active = s.heapUsed;
        }
        if (
          !w.at_full_load_after_gc &&
          s.activeTurns >= (request.fullLoadTurns ?? Number.POSITIVE_INFINITY)
        ) {
          histogram.disable();
          gc?.();
          w.at_full_load_after_gc = snapshot();
          histogram.enable();
        }
      }, 50);
      send({ id: request.id });
      return;
    }
    case "end-window": {
      histogram.disable();
      clearInterval(sampler);
      const w = window as Window;
      w.lag_ms = {
        p50: ns(histogram.percentile(50)),
        p99: ns(histogram.percentile(99)),
        max: ns(histogram.max),
        mean: ns(histogram.mean),
      };
      send({ id: request.id, window: w });
      return;
    }
    case "stop":
      void server.close().then(() => {
        send({ id: request.id });
        process.exit(0);
      });
      return;
  }
});

// The parent died (or was killed): nobody will ask this process to stop.
process.once("disconnect", () => process.exit(0));
send({ ready: server.wsUrl });
