// `pnpm bench stream [--levels 1000,3000] [--chunks 40] [--chunk-ms 50]`: the real path end to end.
// A paced OpenAI-format SSE server in one process, the agentwire server (real start-up, the real
// `openai` SDK through an OpenAI-compatible endpoint) in another, and N WebSocket clients here, each
// running one turn whose answer streams `--chunks` deltas at 1000/chunk-ms per second. Per level:
// server CPU µs per relayed chunk (SDK parsing, loop, frame log, socket), event-loop lag, RSS per
// live turn, frames lost. Writes bench/results/stream.json.
import { type ChildProcess, fork } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import WebSocket from "ws";
import { isDoneFrame, machineInfo, numberArg, round, seqOf } from "./_server.js";
import type { StreamRequest, StreamSnapshot, StreamWindow } from "./_stream-server.js";

const LEVELS = (process.argv[process.argv.indexOf("--levels") + 1] ?? "")
  .split(",")
  .map(Number)
  .filter((n) => process.argv.includes("--levels") && Number.isInteger(n) && n > 0);
const levels = LEVELS.length > 0 ? LEVELS : [1000, 3000];
const CHUNKS = numberArg("chunks", 40);
const CHUNK_MS = numberArg("chunk-ms", 50);
const RAMP_MS = numberArg("ramp-ms", 1000);
const CONNECT_PARALLEL = numberArg("connect-parallel", 50);
const TIMEOUT_MS = numberArg("timeout-ms", 240_000);
const loadStart = loadavg()[0] ?? 0;
const execArgv = ["--expose-gc", "--import", "tsx", "--conditions=@agentwire/source"];

type Child = { proc: ChildProcess; ask<T>(op: StreamRequest["op"]): Promise<T> };

/** Forks a bench child with IPC; resolves once it reports `ready`. */
async function forkChild(script: string, arg: object, extraArgv: string[] = []): Promise<[Child, unknown]> {
  const proc = fork(new URL(script, import.meta.url), [JSON.stringify(arg)], {
    execArgv: [...execArgv, ...extraArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pending = new Map<number, (reply: unknown) => void>();
  let nextId = 0;
  const ready = await new Promise<unknown>((resolve, reject) => {
    proc.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
    proc.on("message", (m: { id?: number; ready?: unknown }) => {
      if (m.ready !== undefined) resolve(m.ready);
      else if (m.id !== undefined) pending.get(m.id)?.(m);
    });
  });
  const ask = <T>(op: StreamRequest["op"]) =>
    new Promise<T>((resolve) => {
      const id = nextId++;
      pending.set(id, (reply) => resolve(reply as T));
      proc.send({ id, op } satisfies StreamRequest);
    });
  return [{ proc, ask }, ready];
}

type Client = { ws: WebSocket; frames: number; chunks: number; lastSeq: number; gaps: number; done: boolean };

async function runLevel(turns: number) {
  const [sse, ssePort] = await forkChild("./_paced-sse-server.ts", { chunks: CHUNKS, chunkMs: CHUNK_MS });
  const serverProf = process.env.BENCH_SERVER_CPU_PROF
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_SERVER_CPU_PROF}`]
    : [];
  const [server, wsUrl] = await forkChild("./_stream-server.ts", { ssePort }, serverProf);

  // Warm-up: a few turns so the first measured ones do not pay for compilation.
  await runTurns(wsUrl as string, 20);
  const empty = await server.ask<StreamSnapshot>("snapshot");

  let finished = 0;
  let resolveAll: () => void = () => {};
  const allDone = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  const clients: Client[] = [];
  for (let i = 0; i < turns; i += CONNECT_PARALLEL) {
    const batch = Array.from({ length: Math.min(CONNECT_PARALLEL, turns - i) }, () =>
      connect(wsUrl as string, () => {
        finished += 1;
        if (finished === turns) resolveAll();
      }),
    );
    clients.push(...(await Promise.all(batch)));
  }
  const connected = await server.ask<StreamSnapshot>("snapshot");

  await server.ask("start-window");
  const t0 = performance.now();
  // Ramp the turns over RAMP_MS, as users arriving.
  for (const [i, client] of clients.entries()) {
    const at = (i / turns) * RAMP_MS;
    setTimeout(
      () => client.ws.send(JSON.stringify({ command: "chat_message", data: { content: "stream" } })),
      at,
    );
  }
  // Full load: every turn has started and none can have ended yet (a turn lasts CHUNKS × CHUNK_MS).
  await new Promise((resolve) => setTimeout(resolve, RAMP_MS + Math.min(500, (CHUNKS * CHUNK_MS) / 4)));
  // In flight: every chat_message has been sent by now; a saturated server may not have answered yet.
  const live = clients.filter((c) => !c.done).length;
  const atLoad = await server.ask<StreamSnapshot>("snapshot");
  const timeout = setTimeout(() => resolveAll(), TIMEOUT_MS);
  await allDone;
  clearTimeout(timeout);
  const wallMs = performance.now() - t0;
  const window = await server.ask<StreamWindow>("end-window");

  const chunks = clients.reduce((n, c) => n + c.chunks, 0);
  const lost = clients.filter((c) => !c.done || c.gaps > 0 || c.chunks !== CHUNKS).length;
  for (const c of clients) c.ws.terminate();
  await server.ask("stop").catch(() => {});
  sse.proc.kill();
  return {
    turns,
    chunks,
    server_cpu_us_per_chunk: round(window.cpu_us / chunks),
    lag_p99_ms: round(window.lag_ms.p99),
    rss_per_turn_kb: round((atLoad.rss - connected.rss) / 1024 / Math.max(1, live), 1),
    frames_lost: lost,
    details: {
      lag_ms: { p50: round(window.lag_ms.p50), p99: round(window.lag_ms.p99), max: round(window.lag_ms.max) },
      turns_in_flight_at_rss_sample: live,
      rss_mb: { empty: mb(empty.rss), connected: mb(connected.rss), at_full_load_after_gc: mb(atLoad.rss) },
      heap_used_mb_at_full_load_after_gc: mb(atLoad.heapUsed),
      wall_ms: Math.round(wallMs),
      ideal_ms: RAMP_MS + CHUNKS * CHUNK_MS,
      server_cpu_ms: Math.round(window.cpu_us / 1000),
      server_user_us_per_chunk: round(window.user_us / chunks),
      server_system_us_per_chunk: round(window.system_us / chunks),
    },
  };
}

const mb = (bytes: number) => round(bytes / 2 ** 20, 1);

/** A client that counts its turn's frames: seq contiguity, text chunks, the one done. */
function connect(url: string, onDone: () => void): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const client: Client = { ws, frames: 0, chunks: 0, lastSeq: 0, gaps: 0, done: false };
    ws.on("message", (data: Buffer) => {
      const seq = seqOf(data);
      if (seq < 0) return; // chat_resumed, errors without a seq
      client.frames += 1;
      if (seq !== client.lastSeq + 1) client.gaps += 1;
      client.lastSeq = seq;
      if (isDoneFrame(data)) {
        client.done = true;
        onDone();
      } else if (isTextChunk(data)) client.chunks += 1;
    });
    ws.once("open", () => resolve(client));
    ws.once("error", reject);
  });
}

const TEXT_CHUNK = Buffer.from('{"type":"chunk","content":" w');
const isTextChunk = (data: Buffer) => data.subarray(0, TEXT_CHUNK.length).equals(TEXT_CHUNK);

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

const results = [];
for (const turns of levels) {
  console.log(`stream: ${turns} concurrent turns…`);
  results.push(await runLevel(turns));
}
const report = {
  levels: results,
  targets: { server_cpu_us_per_chunk: "<= 10", lag_p99_ms: "< 50 at 1000 turns" },
  details: {
    chunks_per_turn: CHUNKS,
    chunk_ms: CHUNK_MS,
    ramp_ms: RAMP_MS,
    method:
      "per level: a fresh paced SSE server process and a fresh agentwire server process; 20 warm-up turns; N sockets connected, then one chat_message each, ramped over ramp_ms; the server measures its own CPU (process.cpuUsage) and event-loop delay (monitorEventLoopDelay, 10 ms resolution subtracted) from the first chat_message to the last done chunk",
    server_cpu_us_per_chunk:
      "server process CPU time (user+system) over the window / text chunks relayed; includes the openai SDK's SSE parsing, the loop, the frame log's group commits, socket writes, turn start and end (rows, ledger); details split user and system (kernel) time: at 20 chunks/s per stream each chunk arrives in its own TCP read and leaves in its own write, and the loopback TCP work of both is system time of this process",
    rss_per_turn_kb:
      "(RSS after gc() with every turn sent − RSS after gc() with the sockets connected) / turns in flight (sent, not yet done) at that moment",
    frames_lost:
      "turns whose client saw a seq gap, no final done chunk, or fewer text chunks than the SSE server sent",
    model_side:
      "bench/src/_paced-sse-server.ts: node:http, the real chat.completion.chunk format (role chunk, one content delta per tick, finish chunk, usage chunk, [DONE]); one interval ticks all streams; not measured",
  },
  machine: {
    ...machineInfo(),
    loadavg_1m_at_start: round(loadStart),
    loadavg_1m_at_end: round(loadavg()[0] ?? 0),
  },
  date: new Date().toISOString(),
};
writeFileSync(new URL("../results/stream.json", import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report.levels, null, 2));
process.exit(0);
