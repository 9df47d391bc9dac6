// `pnpm bench concurrency [--sockets 1000] [--flat-sockets 100] [--chunk-ms 50] ...`: a real agentwire
// server in a child process; the parent opens N sockets that offer `agentwire.v1+nested` and starts
// one turn on each (3 parallel subtasks, provider streaming at a pace), then checks every frame
// arrived. The server reports its own event-loop delay, RSS and active turns over IPC. Then a smaller
// flat arm: sockets without the nested subprotocol, checked for what protocol.md says a flat socket
// gets. The server admits turns as `startServer` does (the admission queue with its defaults;
// --no-admission: all at once). Writes bench/results/concurrency.json; exits 1 when a check fails.
import { writeFileSync } from "node:fs";
import WebSocket from "ws";
import type { Request, ServerOptions, Snapshot, Window } from "./_concurrency-server.js";
import { forkChild, serverProfileArgv } from "./_fork.js";
import { benchStart, isDoneFrame, machineInfo, NESTED_SUBPROTOCOLS, numberArg, round } from "./_server.js";
import { TurnFrames } from "./_turn-check.js";

const start = benchStart();
const SOCKETS = numberArg("sockets", 1000);
const FLAT_SOCKETS = numberArg("flat-sockets", 100);
const RAMP_MS = numberArg("ramp-ms", 1000);
const CONNECT_PARALLEL = numberArg("connect-parallel", 50);
const TIMEOUT_MS = numberArg("timeout-ms", 180_000);
const serverOptions: ServerOptions = {
  subtasks: numberArg("subtasks", 3),
  subtaskChunks: numberArg("subtask-chunks", 40),
  finalChunks: numberArg("final-chunks", 20),
  chunkMs: numberArg("chunk-ms", 50),
  firstTokenMs: numberArg("first-token-ms", 300),
  lagResolutionMs: 10,
  // As `startServer` runs: new turns wait in the admission queue while the process is saturated.
  admission: !process.argv.includes("--no-admission"),
};
// Per turn: the root's "Splitting the work." and its final answer at depth 0, the subtasks' text at 1.
const ROOT_TEXT_CHUNKS = 1 + serverOptions.finalChunks;
const SUBTASK_TEXT_CHUNKS = serverOptions.subtasks * serverOptions.subtaskChunks;

// --- the server child and its IPC requests ---------------------------------------------------------
// BENCH_SERVER_CPU_PROF=<dir>: a V8 CPU profile of the server process, written when it exits.
const [child, wsUrl] = await forkChild<Request["op"], string>(
  "./_concurrency-server.ts",
  serverOptions,
  serverProfileArgv(),
);
const ask = <T>(op: Request["op"], extra: Partial<Request> = {}) => child.ask<T>(op, extra);

// --- clients ----------------------------------------------------------------------------------------
type Client = { ws: WebSocket; turn: TurnFrames };

/** Opens one socket; `nested` offers `agentwire.v1+nested`, else the socket is flat. */
function connect(nested: boolean, onDone: () => void): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = nested
      ? new WebSocket(wsUrl, NESTED_SUBPROTOCOLS, { perMessageDeflate: false })
      : new WebSocket(wsUrl, { perMessageDeflate: false });
    const client: Client = { ws, turn: new TurnFrames() };
    ws.on("message", (data: Buffer) => {
      client.turn.add(data);
      if (client.turn.dones === 1 && isDoneFrame(data)) onDone();
    });
    ws.once("open", () => resolve(client));
    ws.once("error", reject);
  });
}

/** Opens `n` sockets, CONNECT_PARALLEL at a time; `allDone` settles once each has its turn's done. */
async function openClients(n: number, nested: boolean) {
  let finished = 0;
  let resolveAll: (completed: boolean) => void = () => {};
  const allDone = new Promise<boolean>((resolve) => {
    resolveAll = resolve;
  });
  const onDone = () => {
    finished += 1;
    if (finished === n) resolveAll(true);
  };
  const clients: Client[] = [];
  while (clients.length < n) {
    const batch = Math.min(CONNECT_PARALLEL, n - clients.length);
    clients.push(...(await Promise.all(Array.from({ length: batch }, () => connect(nested, onDone)))));
  }
  return { clients, allDone, timeOut: () => resolveAll(false) };
}

const message = JSON.stringify({ command: "chat_message", data: { content: "concurrency benchmark" } });

/** Sends one chat_message per client, spread over RAMP_MS. */
function startTurns(clients: readonly Client[]): void {
  clients.forEach((c, i) => {
    setTimeout(() => c.ws.send(message), (RAMP_MS * i) / clients.length);
  });
}

// Warm-up: a few turns of the same workload first, so JIT and lazy setup are not in the window.
const WARMUP_TURNS = numberArg("warmup-turns", 20);
await Promise.all(
  Array.from({ length: WARMUP_TURNS }, async () => {
    const ws = new WebSocket(wsUrl, NESTED_SUBPROTOCOLS, { perMessageDeflate: false });
    await new Promise((resolve) => ws.once("open", resolve));
    await new Promise<void>((resolve) => {
      ws.on("message", (data: Buffer) => {
        if (isDoneFrame(data)) resolve();
      });
      ws.send(JSON.stringify({ command: "chat_message", data: { content: "warm-up" } }));
    });
    ws.close();
  }),
);

const empty = await ask<{ snapshot: Snapshot }>("snapshot");
const tConnect = performance.now();
const nestedArm = await openClients(SOCKETS, true);
const clients = nestedArm.clients;
const connectMs = performance.now() - tConnect;
const connected = await ask<{ snapshot: Snapshot }>("snapshot");

// --- the turns: one per socket, starts spread over RAMP_MS -------------------------------------------
await ask("start-window", { fullLoadTurns: SOCKETS });
setTimeout(nestedArm.timeOut, TIMEOUT_MS).unref();
const tTurns = performance.now();
startTurns(clients);
// A crashed server fails the run at once, not after the timeout.
const completed = await Promise.race([nestedArm.allDone, child.exited]);
const turnsMs = performance.now() - tTurns;
const { window } = await ask<{ window: Window }>("end-window");
const after = await ask<{ snapshot: Snapshot }>("snapshot");

// --- nested checks: seq 1..done without gaps or repeats, one done last, every text chunk -------------
const turns = clients.map((c) => c.turn);
const expected = Math.max(...turns.map((t) => t.doneSeq));
let framesLost = 0;
for (const t of turns) framesLost += t.dones > 0 ? t.doneSeq - t.seqs : Math.max(0, expected - t.seqs);
const nestedFailed = turns.filter(
  (t) => !t.nestedOk() || t.rootText !== ROOT_TEXT_CHUNKS || t.nestedText !== SUBTASK_TEXT_CHUNKS,
).length;
const gaps = turns.reduce((n, t) => n + t.gaps + t.notIncreasing, 0);
const framesTotal = turns.reduce((n, t) => n + t.frames, 0);
for (const c of clients) c.ws.terminate();

// --- the flat arm: sockets without agentwire.v1+nested, after the nested arm, apart from its figures --
const flat = FLAT_SOCKETS > 0 ? await runFlatArm(FLAT_SOCKETS) : null;

const full = window.at_full_load_after_gc;
const kb = (bytes: number) => round(bytes / 1024, 1);
const mb = (bytes: number) => round(bytes / 2 ** 20, 1);
const report = {
  sockets: SOCKETS,
  event_loop_lag_p99_ms: round(window.lag_ms.p99, 2),
  rss_per_socket_kb: kb((connected.snapshot.rss - empty.snapshot.rss) / SOCKETS),
  rss_per_turn_kb: full ? kb((full.rss - connected.snapshot.rss) / full.activeTurns) : null,
  rss_per_turn_kb_without_gc: kb(
    (window.rss_at_max_active - connected.snapshot.rss) / window.max_active_turns,
  ),
  heap_per_turn_kb: full ? kb((full.heapUsed - connected.snapshot.heapUsed) / full.activeTurns) : null,
  frames_lost: framesLost,
  turns_failed: nestedFailed,
  all_turns_completed: completed,
  event_loop_lag_ms: {
    p50: round(window.lag_ms.p50, 2),
    p99: round(window.lag_ms.p99, 2),
    max: round(window.lag_ms.max, 2),
    mean: round(window.lag_ms.mean, 2),
  },
  frames: {
    received: framesTotal,
    per_turn: expected,
    seq_gaps_or_reorders: gaps,
    turns_done: turns.filter((t) => t.dones > 0).length,
    turns_queued: turns.filter((t) => t.queued).length,
    // Chunks that reached a slow socket merged with others (seqs beyond one per frame).
    seqs_in_merged_text: turns.reduce((n, t) => n + t.seqs - t.frames, 0),
  },
  flat_arm: flat,
  timing: {
    connect_all_ms: Math.round(connectMs),
    all_turns_ms: Math.round(turnsMs),
    frames_per_s: Math.round((framesTotal / turnsMs) * 1000),
  },
  server_memory_mb: {
    rss_empty_after_gc: mb(empty.snapshot.rss),
    rss_connected_after_gc: mb(connected.snapshot.rss),
    rss_at_max_active_turns: mb(window.rss_at_max_active),
    rss_at_full_load_after_gc: full ? mb(full.rss) : null,
    heap_used_at_full_load_after_gc: full ? mb(full.heapUsed) : null,
    rss_peak: mb(window.peak_rss),
    heap_used_connected_after_gc: mb(connected.snapshot.heapUsed),
    heap_used_at_max_active_turns: mb(window.heap_used_at_max_active),
    rss_after_turns_after_gc: mb(after.snapshot.rss),
    heap_used_after_turns_after_gc: mb(after.snapshot.heapUsed),
    max_active_turns: window.max_active_turns,
  },
  workload: {
    ...serverOptions,
    ramp_ms: RAMP_MS,
    warmup_turns: WARMUP_TURNS,
    per_turn:
      `root call (${serverOptions.firstTokenMs} ms to first token, 1 chunk, ${serverOptions.subtasks} run_subtask ` +
      `calls) → ${serverOptions.subtasks} parallel subtasks each streaming ${serverOptions.subtaskChunks} chunks ` +
      `${serverOptions.chunkMs} ms apart after ${serverOptions.firstTokenMs} ms → root final answer of ` +
      `${serverOptions.finalChunks} chunks at the same pace`,
    pace:
      "PacedProvider (bench/src/_paced-provider.ts) wraps ScriptedProvider and waits chunk_ms between text deltas; " +
      "ScriptedProvider's own delayMs models the time to first token of each model call",
  },
  details: {
    server:
      "child process (fork): createServer + chat services, AUTH_MODE=none, SQLite temp file, pino at info to a null sink; with workload.admission, the admission queue with the server's defaults (MAX_LIVE_TURNS, ADMISSION_MAX_LAG_MS, ADMISSION_MAX_UTILIZATION) as startServer runs it, so turns over what the process can stream wait (agent_state queued; turns_queued counts them); --no-admission starts every turn at once",
    limits:
      "maxConnectionsPerUser, messagesPerSecond, messageBurst, rateLimitStrikes raised to 1e6; all sockets are user local",
    clients:
      "ws clients in the parent process offering agentwire.v1+nested (the server then sends subtask text); each checks seq 1..N each once, in order, without gaps (a merged text chunk counts for seq_start..seq), exactly one done, last, and every text chunk (root and subtasks)",
    event_loop_lag:
      "monitorEventLoopDelay (resolution 10 ms) inside the server from the first chat_message to the last done chunk, " +
      "minus the 10 ms resolution",
    rss_per_socket: "(RSS after gc with all sockets open − RSS after gc before any socket) / sockets",
    rss_per_turn:
      "(RSS after one gc() at the first 50 ms sample where all turns were active − RSS after gc with sockets " +
      "open) / active turns; the lag histogram is paused around that gc. *_without_gc: the same from the sample " +
      "with most active turns, no gc (garbage included). heap_per_turn: the same for V8 heapUsed",
    frames_lost:
      "Σ over sockets of (seq of the done chunk − seqs received); a socket without done counts against the largest done seq",
    turns_failed:
      "turns whose socket missed a check: seqs 1..done each once in order, one done last, the root's and the subtasks' text chunks all there",
    flat_arm:
      "after the nested arm, on the same server: flat_sockets sockets that do not offer agentwire.v1+nested, one turn each, ramped over ramp_ms; not in the figures above",
  },
  machine: machineInfo(start),
  date: new Date().toISOString(),
};

await ask("stop");
writeFileSync(
  new URL("../results/concurrency.json", import.meta.url),
  `${JSON.stringify(report, null, 2)}\n`,
);
console.log(JSON.stringify(report, null, 2));
if (!completed || framesLost > 0 || nestedFailed > 0 || (flat !== null && !flat.ok)) process.exitCode = 1;

/**
 * Flat sockets get every frame but subtask text (protocol.md, "Flat sockets"): each seq once and
 * rising, with gaps exactly where the subtask text was, one done last, every depth-0 text chunk and no
 * deeper one.
 */
async function runFlatArm(n: number) {
  const arm = await openClients(n, false);
  setTimeout(arm.timeOut, TIMEOUT_MS).unref();
  const t0 = performance.now();
  startTurns(arm.clients);
  const completed = await Promise.race([arm.allDone, child.exited]);
  const ms = performance.now() - t0;
  for (const c of arm.clients) c.ws.terminate();
  const flatTurns = arm.clients.map((c) => c.turn);
  const count = (bad: (t: TurnFrames) => boolean) => flatTurns.filter(bad).length;
  // Seqs neither received nor skipped subtask text: frames a flat socket should have had.
  const unaccounted = (t: TurnFrames) => t.doneSeq - t.seqs - SUBTASK_TEXT_CHUNKS;
  const checks = {
    without_one_done_last: count((t) => !t.doneLast),
    seq_not_increasing: count((t) => t.notIncreasing > 0),
    with_subtask_text: count((t) => t.nestedText > 0),
    missing_root_text: count((t) => t.rootText !== ROOT_TEXT_CHUNKS),
    gaps_not_the_subtask_text: count((t) => t.dones > 0 && unaccounted(t) !== 0),
  };
  const failed = count(
    (t) =>
      !t.doneLast ||
      t.notIncreasing > 0 ||
      t.nestedText > 0 ||
      t.rootText !== ROOT_TEXT_CHUNKS ||
      unaccounted(t) !== 0,
  );
  return {
    sockets: n,
    ok: completed && failed === 0,
    all_turns_completed: completed,
    turns_failed: failed,
    frames_lost: flatTurns.reduce((sum, t) => sum + (t.dones > 0 ? Math.max(0, unaccounted(t)) : 0), 0),
    checks,
    frames_per_turn: Math.round(flatTurns.reduce((sum, t) => sum + t.frames, 0) / n),
    seq_gaps_per_turn: round(flatTurns.reduce((sum, t) => sum + t.gaps, 0) / n, 1),
    all_turns_ms: Math.round(ms),
    method:
      "sockets that offer no subprotocol (flat: mobile apps, older CLIs). Per protocol.md they get no chunk of depth > 0 and every other frame; seqs rise with gaps where the subtask text was. Checks per turn: each seq once and increasing, exactly one done and it is last, all depth-0 text chunks (the root's first text and its final answer) and no deeper one, and done seq − seqs received = the subtasks' text chunks exactly (frames_lost counts the seqs short of that)",
  };
}
