// `pnpm bench concurrency [--sockets 1000] [--chunk-ms 50] ...`: a real agentwire server in a child
// process; the parent opens N sockets and starts one turn on each (3 parallel subtasks, provider
// streaming at a pace), then checks every frame arrived. The server reports its own event-loop delay,
// RSS and active turns over IPC. Writes bench/results/concurrency.json.
import { type ChildProcess, fork } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import WebSocket from "ws";
import type { Request, ServerOptions, Snapshot, Window } from "./_concurrency-server.js";
import { isDoneFrame, machineInfo, numberArg, round, seqOf } from "./_server.js";

const SOCKETS = numberArg("sockets", 1000);
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
};
const loadStart = loadavg()[0] ?? 0;

// --- the server child and its IPC requests ---------------------------------------------------------
const child: ChildProcess = fork(
  new URL("./_concurrency-server.ts", import.meta.url),
  [JSON.stringify(serverOptions)],
  {
    execArgv: [
      "--expose-gc",
      "--import",
      "tsx",
      "--conditions=@agentwire/source",
      // BENCH_SERVER_CPU_PROF=<dir>: a V8 CPU profile of the server process, written when it exits.
      ...(process.env.BENCH_SERVER_CPU_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_SERVER_CPU_PROF}`]
        : []),
    ],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  },
);
const pending = new Map<number, (reply: Record<string, unknown>) => void>();
let nextId = 0;
const wsUrl = await new Promise<string>((resolve, reject) => {
  child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  child.on("message", (m: { id?: number; ready?: string }) => {
    if (m.ready) resolve(m.ready);
    else if (m.id !== undefined) pending.get(m.id)?.(m);
  });
});
function ask<T>(op: Request["op"], extra: Partial<Request> = {}): Promise<T> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, (reply) => resolve(reply as T));
    child.send({ ...extra, id, op } satisfies Request);
  });
}

// --- clients ----------------------------------------------------------------------------------------
type Client = {
  ws: WebSocket;
  received: number;
  lastSeq: number;
  gaps: number;
  doneSeq: number;
  done: boolean;
};
let finished = 0;
let allDone: () => void = () => {};

function connect(): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
    const client: Client = { ws, received: 0, lastSeq: 0, gaps: 0, doneSeq: 0, done: false };
    ws.on("message", (data: Buffer) => {
      const seq = seqOf(data);
      client.received += 1;
      if (seq !== client.lastSeq + 1) client.gaps += 1;
      client.lastSeq = Math.max(client.lastSeq, seq);
      if (isDoneFrame(data)) {
        client.done = true;
        client.doneSeq = seq;
        finished += 1;
        if (finished === SOCKETS) allDone();
      }
    });
    ws.once("open", () => resolve(client));
    ws.once("error", reject);
  });
}

// Warm-up: a few turns of the same workload first, so JIT and lazy setup are not in the window.
const WARMUP_TURNS = numberArg("warmup-turns", 20);
await Promise.all(
  Array.from({ length: WARMUP_TURNS }, async () => {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
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
const clients: Client[] = [];
const tConnect = performance.now();
while (clients.length < SOCKETS) {
  const batch = Math.min(CONNECT_PARALLEL, SOCKETS - clients.length);
  clients.push(...(await Promise.all(Array.from({ length: batch }, connect))));
}
const connectMs = performance.now() - tConnect;
const connected = await ask<{ snapshot: Snapshot }>("snapshot");

// --- the turns: one per socket, starts spread over RAMP_MS -------------------------------------------
await ask("start-window", { fullLoadTurns: SOCKETS });
const everyoneDone = new Promise<boolean>((resolve) => {
  allDone = () => resolve(true);
  setTimeout(() => resolve(false), TIMEOUT_MS).unref();
});
const tTurns = performance.now();
const message = JSON.stringify({ command: "chat_message", data: { content: "concurrency benchmark" } });
clients.forEach((c, i) => {
  setTimeout(() => c.ws.send(message), (RAMP_MS * i) / SOCKETS);
});
const completed = await everyoneDone;
const turnsMs = performance.now() - tTurns;
const { window } = await ask<{ window: Window }>("end-window");
const after = await ask<{ snapshot: Snapshot }>("snapshot");

// --- frames lost: seq must run 1..done without gaps, ending with the done chunk ----------------------
const expected = Math.max(...clients.map((c) => c.doneSeq));
let framesLost = 0;
for (const c of clients) framesLost += c.done ? c.doneSeq - c.received : Math.max(0, expected - c.received);
const gaps = clients.reduce((n, c) => n + c.gaps, 0);
const framesTotal = clients.reduce((n, c) => n + c.received, 0);

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
    turns_done: clients.filter((c) => c.done).length,
  },
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
      "child process (fork): createServer + chat services, AUTH_MODE=none, SQLite temp file, pino at info to a null sink",
    limits:
      "maxConnectionsPerUser, messagesPerSecond, messageBurst, rateLimitStrikes raised to 1e6; all sockets are user local",
    clients: "ws clients in the parent process; each checks seq 1..N contiguous and the final done chunk",
    event_loop_lag:
      "monitorEventLoopDelay (resolution 10 ms) inside the server from the first chat_message to the last done chunk, " +
      "minus the 10 ms resolution",
    rss_per_socket: "(RSS after gc with all sockets open − RSS after gc before any socket) / sockets",
    rss_per_turn:
      "(RSS after one gc() at the first 50 ms sample where all turns were active − RSS after gc with sockets " +
      "open) / active turns; the lag histogram is paused around that gc. *_without_gc: the same from the sample " +
      "with most active turns, no gc (garbage included). heap_per_turn: the same for V8 heapUsed",
    frames_lost:
      "Σ over sockets of (seq of the done chunk − frames received); a socket without done counts against the largest done seq",
  },
  machine: {
    ...machineInfo(),
    loadavg_1m_at_start: round(loadStart),
    loadavg_1m_at_end: round(loadavg()[0] ?? 0),
  },
  date: new Date().toISOString(),
};

for (const c of clients) c.ws.terminate();
await ask("stop");
writeFileSync(
  new URL("../results/concurrency.json", import.meta.url),
  `${JSON.stringify(report, null, 2)}\n`,
);
console.log(JSON.stringify(report, null, 2));
if (!completed || framesLost > 0) process.exitCode = 1;
