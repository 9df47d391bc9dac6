// `pnpm bench stream [--levels 1000,3000] [--chunks 80] [--chunk-ms 50]`: the real path end to end.
// A paced OpenAI-format SSE server in one process, the agentwire server (real start-up, the real
// `openai` SDK through an OpenAI-compatible endpoint) in another, and N WebSocket clients here, each
// running one turn whose answer streams `--chunks` deltas at 1000/chunk-ms per second. Per level:
// server CPU µs per relayed chunk (SDK parsing, loop, frame log, socket), split into the steady cost
// per chunk and the fixed cost per turn (start and end), event-loop lag, RSS per live turn, frames
// lost; beside each level, the same figures of two floor servers (a bare relay, and one that also
// writes its frames to SQLite), from the same run. Writes bench/results/stream.json.
import { writeFileSync } from "node:fs";
import WebSocket from "ws";
import { forkChild, serverProfileArgv } from "./_fork.js";
import type { CpuSample, StreamOp, StreamSnapshot, StreamWindow } from "./_self-measure.js";
import {
  benchStart,
  isDoneFrame,
  machineInfo,
  monoMs,
  NESTED_SUBPROTOCOLS,
  numberArg,
  round,
} from "./_server.js";
import { TurnFrames } from "./_turn-check.js";

const start = benchStart();
const LEVELS = (process.argv[process.argv.indexOf("--levels") + 1] ?? "")
  .split(",")
  .map(Number)
  .filter((n) => process.argv.includes("--levels") && Number.isInteger(n) && n > 0);
const levels = LEVELS.length > 0 ? LEVELS : [1000, 3000];
// 80, not 40 as before: at 40 chunks (2 s) and a 1 s ramp, the window in which every turn streams and
// none starts or ends was under 1 s even unloaded (see the steady window below).
const CHUNKS = numberArg("chunks", 80);
const CHUNK_MS = numberArg("chunk-ms", 50);
const RAMP_MS = numberArg("ramp-ms", 1000);
const CONNECT_PARALLEL = numberArg("connect-parallel", 50);
const TIMEOUT_MS = numberArg("timeout-ms", 240_000);
const CPU_SAMPLE_MS = numberArg("cpu-sample-ms", 25);
// A turn is starting until its client has STEADY_MARGIN chunks, and ending from its chunk
// CHUNKS − STEADY_MARGIN on (see steadyWindow).
const STEADY_MARGIN = 2;
// A steady window has at least 90 % of the turns streaming through it, lasts at least 10 provider
// ticks, and its chunks arrive at the provider's pace ± 25 % (see steadyWindow).
const STEADY_SHARE = 0.9;
const MIN_STEADY_MS = 500;
const PACE_TOLERANCE = 0.25;

type Client = {
  ws: WebSocket;
  turn: TurnFrames;
  /** monoMs of the chat_message. */
  sentAt: number;
  /** monoMs of each text chunk's arrival (a merged chunk's seqs all arrive at once). */
  arrivals: number[];
  /** monoMs of the done. */
  doneAt: number;
};

/**
 * Which server relays the streams: agentwire, or a floor (_bare-stream-server.ts): the least a relay
 * can do with the same provider, clients and measurement, without (`bare`) or with (`bare-durable`)
 * writing the frames to SQLite before sending them.
 */
type Arm = "agentwire" | "bare" | "bare-durable";
const FLOORS: readonly Arm[] = process.argv.includes("--no-floor") ? [] : ["bare", "bare-durable"];
// `--floor-levels 200,1000`: the levels that also run the floors (default: every level).
const FLOOR_LEVELS = (process.argv[process.argv.indexOf("--floor-levels") + 1] ?? "")
  .split(",")
  .map(Number)
  .filter((n) => process.argv.includes("--floor-levels") && Number.isInteger(n) && n > 0);

async function runLevel(turns: number, arm: Arm = "agentwire") {
  const [sse, ssePort] = await forkChild("./_paced-sse-server.ts", { chunks: CHUNKS, chunkMs: CHUNK_MS });
  const [server, wsUrl] = await forkChild<StreamOp, string>(
    arm === "agentwire" ? "./_stream-server.ts" : "./_bare-stream-server.ts",
    { ssePort, cpuSampleMs: CPU_SAMPLE_MS, durable: arm === "bare-durable" },
    arm === "agentwire" ? serverProfileArgv() : [],
  );

  // Warm-up: a few turns so the first measured ones do not pay for compilation.
  await Promise.race([runTurns(wsUrl, 20), server.exited, sse.exited]);
  const empty = await server.ask<StreamSnapshot>("snapshot");

  let finished = 0;
  let resolveAll: () => void = () => {};
  const allDone = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  const clients: Client[] = [];
  for (let i = 0; i < turns; i += CONNECT_PARALLEL) {
    const batch = Array.from({ length: Math.min(CONNECT_PARALLEL, turns - i) }, () =>
      connect(wsUrl, () => {
        finished += 1;
        if (finished === turns) resolveAll();
      }),
    );
    clients.push(...(await Promise.all(batch)));
  }
  const connected = await server.ask<StreamSnapshot>("snapshot");

  await server.ask("start-window");
  const t0 = monoMs();
  // Ramp the turns over RAMP_MS, as users arriving.
  for (const [i, client] of clients.entries()) {
    const at = (i / turns) * RAMP_MS;
    setTimeout(() => {
      client.sentAt = monoMs();
      client.ws.send(JSON.stringify({ command: "chat_message", data: { content: "stream" } }));
    }, at);
  }
  // Full load: every turn has started and none can have ended yet (a turn lasts CHUNKS × CHUNK_MS).
  await new Promise((resolve) => setTimeout(resolve, RAMP_MS + Math.min(500, (CHUNKS * CHUNK_MS) / 4)));
  // In flight: every chat_message has been sent by now; a saturated server may not have answered yet.
  const live = clients.filter((c) => c.turn.dones === 0).length;
  const atLoad = await server.ask<StreamSnapshot>("snapshot");
  const timeout = setTimeout(() => resolveAll(), TIMEOUT_MS);
  // A crashed server or provider fails the run at once, not after the timeout.
  await Promise.race([allDone, server.exited, sse.exited]);
  clearTimeout(timeout);
  const wallMs = monoMs() - t0;
  const window = await server.ask<StreamWindow>("end-window");

  const chunks = clients.reduce((n, c) => n + c.arrivals.length, 0);
  const lost = clients.filter((c) => !c.turn.nestedOk() || c.turn.rootText !== CHUNKS).length;
  for (const c of clients) c.ws.terminate();
  await server.ask("stop").catch(() => {});
  sse.proc.kill();

  const steady = steadyWindow(clients, window.cpu_samples, t0);
  const steadyUs = steady.window ? steady.window.cpu_us / steady.window.chunks : null;
  const fixedUs = steadyUs === null ? null : (window.cpu_us - steadyUs * chunks) / turns;
  return {
    turns,
    chunks,
    server_cpu_us_per_chunk: round(window.cpu_us / chunks),
    steady_cpu_us_per_chunk: steadyUs === null ? null : round(steadyUs),
    fixed_cpu_us_per_turn: fixedUs === null ? null : round(fixedUs, 0),
    ...(steady.why && { steady_null_because: steady.why }),
    lag_p99_ms: round(window.lag_ms.p99),
    rss_per_turn_kb: round((atLoad.rss - connected.rss) / 1024 / Math.max(1, live), 1),
    frames_lost: lost,
    details: {
      lag_ms: { p50: round(window.lag_ms.p50), p99: round(window.lag_ms.p99), max: round(window.lag_ms.max) },
      turns_in_flight_at_rss_sample: live,
      // Admission control: turns that waited, and when the last turn had its 2nd chunk.
      turns_queued: clients.filter((c) => c.turn.queued).length,
      most_turns_streaming_at_once: maxStreaming(clients),
      last_turn_streaming_after_ms: Math.round(
        Math.max(...clients.map((c) => c.arrivals[STEADY_MARGIN - 1] ?? Number.NaN)) - t0,
      ),
      rss_mb: { empty: mb(empty.rss), connected: mb(connected.rss), at_full_load_after_gc: mb(atLoad.rss) },
      heap_used_mb_at_full_load_after_gc: mb(atLoad.heapUsed),
      wall_ms: Math.round(wallMs),
      ideal_ms: RAMP_MS + CHUNKS * CHUNK_MS,
      server_cpu_ms: Math.round(window.cpu_us / 1000),
      server_user_us_per_chunk: round(window.user_us / chunks),
      server_system_us_per_chunk: round(window.system_us / chunks),
      steady_window: steady.details,
      // What server_cpu_us_per_chunk would be with 40-chunk turns (the default before), same split.
      ...(steadyUs !== null &&
        fixedUs !== null && {
          server_cpu_us_per_chunk_at_40_chunks_estimate: round(steadyUs + fixedUs / 40),
        }),
    },
  };
}

/**
 * The steady window: a stretch of time in which no turn is starting (chat_message sent, its chunk
 * STEADY_MARGIN not yet in) and none is ending (its chunk CHUNKS − STEADY_MARGIN in, its done not
 * yet), judged by the clients' arrival times, through which at least STEADY_SHARE of the turns
 * stream. Normally the one from the last turn's chunk 2 to the first turn's chunk CHUNKS − 2; when a
 * few late turns split it, the stretch with the most provider-paced chunks (turns streaming through it
 * × its length), not the most received: a saturated server catching up delivers a backlog in a short
 * burst. It must last MIN_STEADY_MS, and its clients must have received chunks at the provider's pace
 * (within PACE_TOLERANCE): else the server was saturated and there is no steady state to measure. The server's CPU in it is interpolated between
 * the server's own samples (both on CLOCK_MONOTONIC): IPC round trips would not do for its bounds, a
 * saturated server answers them seconds late.
 */
function steadyWindow(clients: readonly Client[], samples: readonly CpuSample[], t0: number) {
  const ending = CHUNKS - STEADY_MARGIN - 1; // index of the chunk from which a turn counts as ending
  if (clients.some((c) => c.arrivals.length < CHUNKS || c.doneAt === 0))
    return { details: null, why: "some turn did not receive all its chunks and its done" };
  const busy = clients
    .flatMap((c): [number, number][] => [
      [c.sentAt, c.arrivals[STEADY_MARGIN - 1] as number],
      [c.arrivals[ending] as number, c.doneAt],
    ])
    .sort((a, b) => a[0] - b[0]);
  const streamingThrough = (from: number, to: number) =>
    clients.filter((c) => (c.arrivals[STEADY_MARGIN - 1] as number) <= from && c.doneAt >= to).length;
  let best = { from: 0, to: 0, turns: 0 };
  let busyUntil = busy[0]?.[1] ?? 0;
  for (const [from, to] of busy.slice(1)) {
    if (from > busyUntil) {
      const turns = streamingThrough(busyUntil, from);
      const enough = turns >= STEADY_SHARE * clients.length;
      if (enough && turns * (from - busyUntil) > best.turns * (best.to - best.from))
        best = { from: busyUntil, to: from, turns };
    }
    busyUntil = Math.max(busyUntil, to);
  }
  const { from, to, turns } = best;
  if (turns === 0)
    return {
      details: null,
      why: `saturated: there was no moment at which ${STEADY_SHARE * 100} % of the turns streamed and none started or ended (at most ${maxStreaming(clients)} of ${clients.length} streamed at once; ${clients.filter((c) => c.turn.queued).length} waited in the admission queue)`,
    };
  const chunks = countArrivals(clients, from, to);
  const pace = turns > 0 ? chunks / ((turns * (to - from)) / CHUNK_MS) : 0;
  const details = {
    from_ms: round(from - t0, 0),
    to_ms: round(to - t0, 0),
    ms: round(to - from, 0),
    turns_streaming: turns,
    chunks,
    received_per_provider_chunk: round(pace),
    cpu_ms: 0,
    cpu_samples_in_window: samples.filter(([t]) => t >= from && t <= to).length,
    cpu_sample_ms: CPU_SAMPLE_MS,
  };
  if (to - from < MIN_STEADY_MS)
    return {
      details,
      why: `saturated: while ${STEADY_SHARE * 100} % of the turns streamed, some turn was starting or ending at nearly every moment (the best stretch without lasted ${round(to - from, 0)} ms, under ${MIN_STEADY_MS} ms)`,
    };
  if (Math.abs(pace - 1) > PACE_TOLERANCE)
    return {
      details,
      why: `saturated: in the stretch without turn starts or ends (${round(to - from, 0)} ms, ${turns} turns) the clients received ${round(pace)} chunks per chunk the provider sent`,
    };
  const cpuUs = cpuAt(samples, to) - cpuAt(samples, from);
  details.cpu_ms = round(cpuUs / 1000, 1);
  return { details, window: { cpu_us: cpuUs, chunks } };
}

/** The most turns streaming at once: between their chunk STEADY_MARGIN and chunk CHUNKS − STEADY_MARGIN. */
function maxStreaming(clients: readonly Client[]): number {
  const edges = clients
    .flatMap((c): [number, number][] => [
      [c.arrivals[STEADY_MARGIN - 1] ?? Number.POSITIVE_INFINITY, 1],
      [c.arrivals[CHUNKS - STEADY_MARGIN - 1] ?? Number.POSITIVE_INFINITY, -1],
    ])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) {
    now += step;
    most = Math.max(most, now);
  }
  return most;
}

function countArrivals(clients: readonly Client[], from: number, to: number): number {
  let n = 0;
  for (const c of clients) for (const t of c.arrivals) if (t >= from && t <= to) n += 1;
  return n;
}

/** Process CPU µs at time `t`, linear between the two samples around it (clamped at the ends). */
function cpuAt(samples: readonly CpuSample[], t: number): number {
  const after = samples.findIndex(([at]) => at >= t);
  if (after <= 0) return (after === 0 ? samples[0] : samples.at(-1))?.[1] ?? 0;
  const [t1, c1] = samples[after - 1] as CpuSample;
  const [t2, c2] = samples[after] as CpuSample;
  return t2 === t1 ? c2 : c1 + ((c2 - c1) * (t - t1)) / (t2 - t1);
}

const mb = (bytes: number) => round(bytes / 2 ** 20, 1);

/** A client that checks its turn's frames and keeps the arrival time of each text chunk. */
function connect(url: string, onDone: () => void): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, NESTED_SUBPROTOCOLS, { perMessageDeflate: false });
    const client: Client = { ws, turn: new TurnFrames(), sentAt: 0, arrivals: [], doneAt: 0 };
    ws.on("message", (data: Buffer) => {
      const text = client.turn.add(data);
      if (text > 0) {
        const now = monoMs();
        for (let i = 0; i < text; i++) client.arrivals.push(now);
      } else if (client.turn.dones === 1 && isDoneFrame(data)) {
        client.doneAt = monoMs();
        onDone();
      }
    });
    ws.once("open", () => resolve(client));
    ws.once("error", reject);
  });
}

/** Runs `n` turns one socket each and waits for them all (warm-up). */
async function runTurns(url: string, n: number): Promise<void> {
  let left = n;
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  const clients = await Promise.all(
    Array.from({ length: n }, () =>
      connect(url, () => {
        left -= 1;
        if (left === 0) done();
      }),
    ),
  );
  for (const c of clients)
    c.ws.send(JSON.stringify({ command: "chat_message", data: { content: "warm-up" } }));
  await all;
  for (const c of clients) c.ws.terminate();
}

/** The same level relayed by a floor server: its figures beside agentwire's, from the same run. */
async function floorOf(turns: number, arm: Arm) {
  console.log(`stream: ${turns} concurrent turns, ${arm} relay (the floor)…`);
  const level = await runLevel(turns, arm);
  return {
    server_cpu_us_per_chunk: level.server_cpu_us_per_chunk,
    steady_cpu_us_per_chunk: level.steady_cpu_us_per_chunk,
    fixed_cpu_us_per_turn: level.fixed_cpu_us_per_turn,
    ...(level.steady_null_because && { steady_null_because: level.steady_null_because }),
    lag_p99_ms: level.lag_p99_ms,
    frames_lost: level.frames_lost,
    server_user_us_per_chunk: level.details.server_user_us_per_chunk,
    server_system_us_per_chunk: level.details.server_system_us_per_chunk,
  };
}

const results = [];
for (const turns of levels) {
  console.log(`stream: ${turns} concurrent turns…`);
  const level = await runLevel(turns);
  const floors: Record<string, Awaited<ReturnType<typeof floorOf>>> = {};
  const withFloor = FLOOR_LEVELS.length === 0 || FLOOR_LEVELS.includes(turns);
  if (withFloor) for (const arm of FLOORS) floors[arm.replace("-", "_")] = await floorOf(turns, arm);
  results.push({ ...level, ...(withFloor && FLOORS.length > 0 && { baseline_floor: floors }) });
}
const report = {
  levels: results,
  targets: { server_cpu_us_per_chunk: "<= 10", lag_p99_ms: "< 50 at 1000 turns" },
  details: {
    chunks_per_turn: CHUNKS,
    chunk_ms: CHUNK_MS,
    ramp_ms: RAMP_MS,
    method:
      "per level: a fresh paced SSE server process and a fresh agentwire server process; 20 warm-up turns; N sockets (offering agentwire.v1+nested) connected, then one chat_message each, ramped over ramp_ms; the server measures its own CPU (process.cpuUsage) and event-loop delay (monitorEventLoopDelay, 10 ms resolution subtracted) from the first chat_message to the last done chunk",
    server_cpu_us_per_chunk:
      "server process CPU time (user+system) over the window / text chunks relayed; includes the openai SDK's SSE parsing, the loop, the frame log's group commits, socket writes, turn start and end (rows, ledger); details split user and system (kernel) time: at 20 chunks/s per stream each chunk arrives in its own TCP read and leaves in its own write, and the loopback TCP work of both is system time of this process. It depends on chunks_per_turn (the fixed cost per turn is spread over its chunks): compare runs at the same chunks_per_turn, or use details.server_cpu_us_per_chunk_at_40_chunks_estimate (steady + fixed / 40) against figures measured with 40",
    steady_cpu_us_per_chunk: `server CPU per text chunk in the steady window, a stretch of time in which no turn starts or ends: a turn is starting from its chat_message until its client has received chunk ${STEADY_MARGIN}, ending from its chunk ${CHUNKS - STEADY_MARGIN} until its done; normally from the moment every client has ${STEADY_MARGIN} chunks to the moment the first has ${CHUNKS - STEADY_MARGIN}; when a few late turns split that stretch, of those through which at least ${STEADY_SHARE * 100} % of the turns stream, the one with the most provider-paced chunks (turns streaming through it × its length; details.steady_window.turns_streaming). Bounds from the clients' arrival times (process.hrtime, CLOCK_MONOTONIC, shared by the processes); the server's CPU at each bound interpolated from process.cpuUsage() samples taken every cpu_sample_ms by a worker thread in the server process (its timer runs while the event loop lags); chunks counted from client arrivals inside the window. null, with steady_null_because saying why, when there is no such window of at least ${MIN_STEADY_MS} ms or when its clients did not receive chunks at the provider's pace ±${PACE_TOLERANCE * 100} % (details.steady_window.received_per_provider_chunk): a saturated server, whose cost per chunk while it catches up on a backlog is not the steady one`,
    fixed_cpu_us_per_turn:
      "(server CPU over the whole window − steady_cpu_us_per_chunk × all text chunks) / turns: what a turn's start and end cost (rows, ledger, toolbelt, provider request, final message), beside its chunks",
    rss_per_turn_kb:
      "(RSS after gc() with every turn sent − RSS after gc() with the sockets connected) / turns in flight (sent, not yet done) at that moment",
    frames_lost:
      "turns whose client saw a seq gap or repeat, not exactly one done as the last frame, or fewer text chunks than the SSE server sent",
    baseline_floor:
      "per level, the same turns, clients, provider and measurement with a floor server instead of agentwire (bench/src/_bare-stream-server.ts), in the same run (every level, or those of --floor-levels): `bare` posts to the provider over one keep-alive agent, reads the stream with eventsource-parser and sends each delta as one chunk frame (thread_id, seq), then a done: no loop, no rows, no durability; `bare_durable` also writes each tick's frames to SQLite (WAL, synchronous=NORMAL, one transaction per tick, one row per thread per tick) before sending them, as agentwire's group commit does. What is left between agentwire and bare_durable is agentwire's own work; bare itself is the syscalls and parsing every relay pays. Skip with --no-floor",
    model_side:
      "bench/src/_paced-sse-server.ts: node:http, the real chat.completion.chunk format (role chunk, one content delta per tick, finish chunk, usage chunk, [DONE]); one interval ticks all streams; not measured",
  },
  machine: machineInfo(start),
  date: new Date().toISOString(),
};
writeFileSync(new URL("../results/stream.json", import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report.levels, null, 2));
const lostAny = results.some(
  (l) => l.frames_lost > 0 || Object.values(l.baseline_floor ?? {}).some((f) => f.frames_lost > 0),
);
process.exit(lostAny ? 1 : 0);
