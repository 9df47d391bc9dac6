// `pnpm bench relay [--chunks N] [--runs R]`: one turn whose ScriptedProvider emits N text chunks at
// once, relayed by a real agentwire server to a ws client over loopback, against a bare `ws`
// WebSocketServer sending the byte-identical frames of that turn, A/B/A/B in the same process.
// Writes bench/results/relay.json.
import { writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";
import {
  benchStart,
  isDoneFrame,
  machineInfo,
  median,
  numberArg,
  round,
  seqOf,
  startBenchServer,
} from "./_server.js";

const CHUNKS = numberArg("chunks", 10_000);
const RUNS = numberArg("runs", 10);
const WARMUP = numberArg("warmup", 3);
const CHUNK_TEXT = " token";
const start = benchStart();

type Run = { ms: number; cpuMs: number; frames: number; bytes: number; gaps: number; texts?: string[] };

/** A client that sends one `chat_message` and counts the frames up to the done chunk. */
function openClient(url: string) {
  const ws = new WebSocket(url);
  let current:
    | { resolve: (r: Run) => void; t0: number; cpu0: NodeJS.CpuUsage; run: Run; firstSeq: number }
    | undefined;
  ws.on("message", (data: Buffer) => {
    const c = current;
    if (!c) throw new Error("frame outside a run");
    const { run } = c;
    run.frames += 1;
    run.bytes += data.length;
    const seq = seqOf(data);
    if (run.frames === 1) c.firstSeq = seq;
    else if (seq !== c.firstSeq + run.frames - 1) run.gaps += 1;
    run.texts?.push(data.toString("utf8"));
    if (isDoneFrame(data)) {
      run.ms = performance.now() - c.t0;
      const cpu = process.cpuUsage(c.cpu0);
      run.cpuMs = (cpu.user + cpu.system) / 1000;
      current = undefined;
      c.resolve(run);
    }
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    opened,
    ws,
    turn(capture = false): Promise<Run> {
      return new Promise((resolve) => {
        const run: Run = { ms: 0, cpuMs: 0, frames: 0, bytes: 0, gaps: 0, ...(capture && { texts: [] }) };
        current = { resolve, run, t0: performance.now(), cpu0: process.cpuUsage(), firstSeq: 0 };
        ws.send(JSON.stringify({ command: "chat_message", data: { content: "relay benchmark" } }));
      });
    },
  };
}

// agentwire: the real server, chat services, chat_message handler, ScriptedProvider with N instant chunks.
const server = await startBenchServer({
  provider: () => ({ text: Array(CHUNKS).fill(CHUNK_TEXT), usage: { inputTokens: 3, outputTokens: CHUNKS } }),
});
const agentwire = openClient(server.wsUrl);
await agentwire.opened;

// The transcript of one agentwire turn: what the bare server sends, frame for frame.
const captured = await agentwire.turn(true);
const script = (captured.texts ?? []).map((t) => JSON.parse(t) as object);
for (const [i, frame] of script.entries()) {
  if (JSON.stringify(frame) !== captured.texts?.[i]) throw new Error(`frame ${i} does not round-trip`);
}

// bare ws: a plain WebSocketServer that, per client message, JSON-encodes and sends those frames.
const bare = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
await new Promise<void>((resolve) => bare.once("listening", () => resolve()));
bare.on("connection", (socket) => {
  socket.on("message", () => {
    for (const frame of script) socket.send(JSON.stringify(frame));
  });
});
const bareClient = openClient(`ws://127.0.0.1:${(bare.address() as AddressInfo).port}`);
await bareClient.opened;

const A: Run[] = [];
const B: Run[] = [];
for (let i = 0; i < WARMUP + RUNS; i++) {
  const a = await agentwire.turn();
  const b = await bareClient.turn();
  if (i < WARMUP) continue;
  A.push(a);
  B.push(b);
}

for (const r of [...A, ...B]) {
  if (r.gaps > 0 || r.frames !== captured.frames)
    throw new Error(`lost or reordered frames: ${JSON.stringify(r)}`);
}
const chunksPerS = (r: Run) => (CHUNKS / r.ms) * 1000;
const bytesPerS = (r: Run) => (r.bytes / r.ms) * 1000;
const aChunks = median(A.map(chunksPerS));
const bChunks = median(B.map(chunksPerS));
const cpuChunksPerS = (r: Run) => (CHUNKS / r.cpuMs) * 1000;
const aCpu = median(A.map(cpuChunksPerS));
const bCpu = median(B.map(cpuChunksPerS));
const pairRatios = A.map((a, i) => chunksPerS(a) / chunksPerS(B[i] as Run));

const report = {
  agentwire_chunks_per_s: Math.round(aChunks),
  bare_ws_chunks_per_s: Math.round(bChunks),
  ratio: round(aChunks / bChunks, 3),
  target: "ratio >= 0.8",
  agentwire_bytes_per_s: Math.round(median(A.map(bytesPerS))),
  bare_ws_bytes_per_s: Math.round(median(B.map(bytesPerS))),
  agentwire_chunks_per_cpu_s: Math.round(aCpu),
  bare_ws_chunks_per_cpu_s: Math.round(bCpu),
  cpu_ratio: round(aCpu / bCpu, 3),
  agentwire_turn_ms: round(median(A.map((r) => r.ms))),
  bare_ws_turn_ms: round(median(B.map((r) => r.ms))),
  pair_ratio_min: round(Math.min(...pairRatios), 3),
  pair_ratio_max: round(Math.max(...pairRatios), 3),
  details: {
    chunks_per_turn: CHUNKS,
    chunk_text: CHUNK_TEXT,
    frames_per_turn: captured.frames,
    bytes_per_turn: captured.bytes,
    runs: RUNS,
    warmup_runs: WARMUP,
    method:
      "medians of runs alternated agentwire/bare (A/B/A/B) after warm-up; a run is the wall time from sending " +
      "chat_message to receiving the done chunk; chunks/s counts the N text chunks, bytes/s every frame of the turn; " +
      "*_per_cpu_s divides by the process CPU time (user+system) of the run instead, which a busy machine distorts less",
    no_forced_gc:
      "no gc() between runs: a forced full GC shrinks V8's young generation and made the next agentwire run ~2.5x " +
      "slower in CPU (it retains every frame of the turn for resume_chat, so scavenges promote them); production never " +
      "forces GC",
    agentwire:
      "createServer + createChatServices + chatCommandHandlers, AUTH_MODE=none, SQLite temp file, pino at info to a " +
      "null sink; a new thread per run; ScriptedProvider streams N text deltas with no delay",
    bare_ws:
      "ws WebSocketServer (perMessageDeflate off); on the client's message it JSON.stringify()s and sends the frame " +
      "objects of a captured agentwire turn in a synchronous loop: byte-identical frames, thread_id/seq included",
    client:
      "one ws client per server, kept open; per frame it counts bytes and checks seq contiguity by scanning the " +
      "bytes (no JSON.parse), identical work for both arms",
    same_process: true,
    same_process_note:
      "client and both servers share one Node process (one JS thread): client work is in both arms' times",
  },
  machine: machineInfo(start),
  date: new Date().toISOString(),
};

agentwire.ws.close();
bareClient.ws.close();
bare.close();
await server.close();
writeFileSync(new URL("../results/relay.json", import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
