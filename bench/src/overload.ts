// `pnpm bench overload [--running 200] [--burst 3000] ...`: what a burst of new turns does to the
// streams already running on one server. The real path as in `stream` (paced OpenAI-format SSE
// server, the real server start-up and `openai` SDK, SQLite). First `--running` long streams start
// and stream steadily; then `--burst` more turns start within `--burst-ms`, each on its own socket,
// from a separate client process. Measures the running streams' chunk pace during the overload
// against the provider's (pace_ratio), checks every turn completes, and counts what admission control
// did (turns queued, turns refused `overloaded`, which retry after a backoff). Writes
// bench/results/overload.json; exits 1 when a turn fails its checks.
import { writeFileSync } from "node:fs";
import { forkChild, serverProfileArgv } from "./_fork.js";
import type { BurstOptions, BurstResult } from "./_overload-burst.js";
import {
  countdown,
  openClients,
  summarize,
  type TurnClient,
  type TurnsSummary,
  within,
} from "./_overload-client.js";
import type { StreamOp, StreamWindow } from "./_self-measure.js";
import { benchStart, machineInfo, monoMs, numberArg, quantile, round } from "./_server.js";

const start = benchStart();
const RUNNING = numberArg("running", 200);
// 400 chunks at 20/s: 20 s, so the running streams outlast a burst that saturates the server for
// seconds (their windows stop where their provider stream ends; see running_cover_overload_share).
const RUNNING_CHUNKS = numberArg("running-chunks", 400);
const RUNNING_RAMP_MS = numberArg("running-ramp-ms", 1000);
// How long the running streams stream, all of them, before the burst: the baseline pace.
const STEADY_MS = numberArg("steady-ms", 2000);
const BURST = numberArg("burst", 3000);
const BURST_CHUNKS = numberArg("burst-chunks", 40);
const BURST_MS = numberArg("burst-ms", 1000);
const CHUNK_MS = numberArg("chunk-ms", 50);
const RETRY_MS = numberArg("retry-ms", 250);
const WINDOW_MS = numberArg("window-ms", 1000);
const STEP_MS = numberArg("step-ms", 100);
const CONNECT_PARALLEL = numberArg("connect-parallel", 50);
const TIMEOUT_MS = numberArg("timeout-ms", 300_000);
const WARMUP = 20;
// `--server-env "ADMISSION_QUEUE_MAX=100,MAX_LIVE_TURNS=500"`: server configuration to try.
const SERVER_ENV = Object.fromEntries(
  (process.argv.includes("--server-env")
    ? (process.argv[process.argv.indexOf("--server-env") + 1] ?? "")
    : ""
  )
    .split(",")
    .filter(Boolean)
    .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
);

// --- processes: the provider, the server, the burst's clients --------------------------------------
const [sse, ssePort] = await forkChild<"sent-times">("./_paced-sse-server.ts", {
  chunks: BURST_CHUNKS,
  chunkMs: CHUNK_MS,
});
const [server, wsUrl] = await forkChild<StreamOp, string>(
  "./_stream-server.ts",
  { ssePort, env: SERVER_ENV },
  serverProfileArgv(),
);
const stopAll = async () => {
  await server.ask("stop").catch(() => {});
  sse.proc.kill();
};

// Warm-up: a few turns so the measured ones do not pay for compilation.
const warm = countdown(WARMUP);
const warmClients = await openClients(wsUrl, WARMUP, WARMUP, () => ({
  content: "warm-up",
  retryMs: RETRY_MS,
  keepArrivals: false,
  onDone: warm.tick,
}));
for (const c of warmClients) c.start();
await Promise.race([warm.done, server.exited, sse.exited]);
for (const c of warmClients) c.ws.terminate();

console.log(`overload: connecting ${BURST} burst sockets and ${RUNNING} running ones…`);
const [burst] = await forkChild<"go" | "stop">("./_overload-burst.ts", {
  wsUrl,
  turns: BURST,
  chunks: BURST_CHUNKS,
  burstMs: BURST_MS,
  retryMs: RETRY_MS,
  connectParallel: CONNECT_PARALLEL,
  timeoutMs: TIMEOUT_MS,
} satisfies BurstOptions);

// --- the running streams ---------------------------------------------------------------------------
const runningDone = countdown(RUNNING);
// A running stream is streaming once its second chunk is in (its turn's start is behind it).
const streaming = countdown(RUNNING);
const seen = new Set<TurnClient>();
const running = await openClients(wsUrl, RUNNING, CONNECT_PARALLEL, (i) => ({
  content: `running bench:chunks=${RUNNING_CHUNKS} bench:tag=r${i}`,
  retryMs: RETRY_MS,
  keepArrivals: true,
  onDone: runningDone.tick,
  onText(client) {
    if (client.arrivals.length < 2 || seen.has(client)) return;
    seen.add(client);
    streaming.tick();
  },
}));
const t0 = monoMs();
running.forEach((c, i) => {
  setTimeout(() => c.start(), (i / RUNNING) * RUNNING_RAMP_MS);
});
if (!(await within(Promise.race([streaming.done, server.exited, sse.exited]), TIMEOUT_MS))) {
  await stopAll();
  throw new Error(`overload: the ${RUNNING} running streams did not all start within ${TIMEOUT_MS} ms`);
}
const allStreamingAt = monoMs();
// Pacing, not synchronisation: the baseline the overload is compared with.
await new Promise((resolve) => setTimeout(resolve, STEADY_MS));

// --- the burst ---------------------------------------------------------------------------------------
console.log(`overload: ${RUNNING} streams running; starting ${BURST} turns within ${BURST_MS} ms…`);
await server.ask("start-window");
// A crashed server, provider or burst process fails the run at once (ask rejects when its child exits).
const burstResult = await Promise.race([burst.ask<BurstResult>("go"), server.exited, sse.exited]);
const burstAnsweredAt = monoMs();
const serverWindow = await server.ask<StreamWindow>("end-window");
const runningCompleted = await within(runningDone.done, TIMEOUT_MS);
const { times: sentTimes } = await sse.ask<{ times: Record<string, number[]> }>("sent-times");
await burst.ask("stop");
for (const c of running) c.ws.terminate();
await stopAll();

// --- pace of the running streams ---------------------------------------------------------------------
const overloadFrom = burstResult.summary.first_sent_at;
const overloadTo = burstResult.completed ? burstResult.summary.last_done_at : burstAnsweredAt;
const during = paceOver(overloadFrom, overloadTo);
const before = paceOver(allStreamingAt, overloadFrom);

/**
 * Sliding WINDOW_MS windows, STEP_MS apart, inside [from, to]: for each running stream and each window
 * inside its provider stream (first to last delta written), the deltas the provider wrote in it /
 * the chunks its client received in it (at least 1: a window without any chunk counts as expected/1).
 * Also the gaps between a stream's consecutive chunks when both arrived in [from, to].
 */
function paceOver(from: number, to: number) {
  const ratios: number[] = [];
  const gaps: number[] = [];
  let emptyWindows = 0;
  let coveredTo = from;
  running.forEach((c, i) => {
    const sent = sentTimes[`r${i}`] ?? [];
    const first = sent[0];
    const last = sent.at(-1);
    if (first === undefined || last === undefined) return;
    coveredTo = Math.max(coveredTo, Math.min(last, to));
    for (let w = Math.max(from, first); w + WINDOW_MS <= Math.min(to, last); w += STEP_MS) {
      const expected = countIn(sent, w, w + WINDOW_MS);
      const received = countIn(c.arrivals, w, w + WINDOW_MS);
      if (received === 0) emptyWindows += 1;
      ratios.push(expected / Math.max(1, received));
    }
    for (let k = 1; k < c.arrivals.length; k++) {
      const [a, b] = [c.arrivals[k - 1] as number, c.arrivals[k] as number];
      if (a >= from && b <= to) gaps.push(b - a);
    }
  });
  return {
    windows: ratios.length,
    ratio: ratios.length > 0 ? stats(ratios, 2) : null,
    windows_without_a_chunk: emptyWindows,
    gap_ms: gaps.length > 0 ? stats(gaps, 1) : null,
    period_ms: Math.round(to - from),
    covered_ms: Math.round(coveredTo - from),
  };
}

function countIn(times: readonly number[], from: number, to: number): number {
  let n = 0;
  for (const t of times) if (t >= from && t < to) n += 1;
  return n;
}

function stats(values: number[], digits: number) {
  return {
    p50: round(quantile(values, 0.5), digits),
    p99: round(quantile(values, 0.99), digits),
    max: round(quantile(values, 1), digits),
  };
}

// --- report --------------------------------------------------------------------------------------------
const runningSummary = summarize(running, RUNNING_CHUNKS);
const burstSummary = burstResult.summary;
/** A summary with its CLOCK_MONOTONIC instants as ms after the burst's first chat_message. */
const fromOverload = ({ first_sent_at, last_done_at, ...rest }: TurnsSummary) => ({
  ...rest,
  first_sent_ms: Math.round(first_sent_at - overloadFrom),
  last_done_ms: Math.round(last_done_at - overloadFrom),
});
const turns = RUNNING + BURST;
const framesLost = runningSummary.failed_checks + burstSummary.failed_checks;
const report = {
  turns,
  turns_completed: runningSummary.completed + burstSummary.completed,
  frames_lost: framesLost,
  pace_ratio_p99: during.ratio?.p99 ?? null,
  pace_ratio_p50: during.ratio?.p50 ?? null,
  pace_ratio_max: during.ratio?.max ?? null,
  gap_p99_ms: during.gap_ms?.p99 ?? null,
  ...(during.ratio === null && {
    pace_null_because: `no ${WINDOW_MS} ms window lies inside both the overload period and a running stream's provider stream`,
  }),
  queued: runningSummary.queued + burstSummary.queued,
  refused: runningSummary.refused + burstSummary.refused,
  last_turn_done_after_ms: Math.round(burstSummary.last_done_at - overloadFrom),
  slowest_turn_ms: Math.max(runningSummary.turn_ms.max, burstSummary.turn_ms.max),
  details: {
    pace_during_overload: during,
    pace_before_overload: before,
    running_cover_overload_share: round(during.covered_ms / Math.max(1, during.period_ms), 2),
    running: fromOverload(runningSummary),
    burst: { ...fromOverload(burstSummary), all_completed_in_time: burstResult.completed },
    running_all_completed_in_time: runningCompleted,
    server_during_overload: {
      cpu_ms: Math.round(serverWindow.cpu_us / 1000),
      lag_ms: {
        p50: round(serverWindow.lag_ms.p50),
        p99: round(serverWindow.lag_ms.p99),
        max: round(serverWindow.lag_ms.max),
      },
    },
    timing_ms: {
      running_all_streaming_after: Math.round(allStreamingAt - t0),
      overload_period: Math.round(overloadTo - overloadFrom),
      ideal_burst: BURST_MS + BURST_CHUNKS * CHUNK_MS,
    },
  },
  config: {
    running: RUNNING,
    running_chunks: RUNNING_CHUNKS,
    running_ramp_ms: RUNNING_RAMP_MS,
    steady_ms: STEADY_MS,
    burst: BURST,
    burst_chunks: BURST_CHUNKS,
    burst_ms: BURST_MS,
    chunk_ms: CHUNK_MS,
    retry_ms: RETRY_MS,
    window_ms: WINDOW_MS,
    step_ms: STEP_MS,
    warmup_turns: WARMUP,
    server_env: SERVER_ENV,
  },
  definitions: {
    method:
      "one agentwire server process (the real startServer, SQLite file, AUTH_MODE=none, BENCH_SERVER_LIMITS) with the paced SSE server process as its OpenAI-compatible provider (the real openai SDK), as in `stream`; every client offers agentwire.v1+nested and runs one turn on its own socket. The running streams' clients are in this process; the burst's sockets are opened beforehand in a separate process (bench/src/_overload-burst.ts), so the handshakes are not in the overload and the burst's frames do not delay the running clients' clocks",
    overload_period:
      "from the burst's first chat_message to the done of its last turn (or the timeout), CLOCK_MONOTONIC in every process",
    pace_ratio:
      "for each running stream and each sliding window (window_ms long, step_ms apart) inside both the overload period and that stream's provider stream (first to last delta written, as timed by the SSE server): deltas the provider wrote in the window / chunks its client received in it (a window without any chunk counts as expected / 1, see windows_without_a_chunk). 1 is keeping pace; 2 is half the pace. p50/p99/max over all (stream, window) pairs. details.pace_before_overload is the same over the steady period before the burst, the noise floor",
    gap_ms:
      "time between a running stream's consecutive chunks at its client, both inside the overload period",
    frames_lost:
      "turns (running and burst) that failed a check: exactly one done, last; seqs 1..done each once, in order, without gaps (a merged text chunk stands for seq_start..seq); every text chunk the provider sent",
    queued: 'turns whose client saw agent_state {state: "queued"} (admission control made them wait)',
    refused:
      'turns that got error {code: "overloaded"} at least once (the queue was full; nothing started); each refusal is retried after a backoff of retry_ms doubling per refusal up to 4 s, with jitter, until the turn completes; details.*.refusals counts every refusal',
    last_turn_done_after_ms:
      "from the burst's first chat_message to the done of its last turn (the running streams end when their provider stream does)",
    slowest_turn_ms: "the longest first chat_message → done of a single turn, refusals and retries included",
  },
  machine: machineInfo(start),
  date: new Date().toISOString(),
};

writeFileSync(new URL("../results/overload.json", import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
// The headline figures; the file has the rest.
console.log(
  JSON.stringify({ ...report, details: undefined, config: undefined, definitions: undefined }, null, 2),
);
const allCompleted = report.turns_completed === turns;
process.exit(framesLost > 0 || !allCompleted ? 1 : 0);
