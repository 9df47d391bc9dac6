// `pnpm bench ttft [--samples N]`: time from sending `chat_message` to the first `chunk` frame with an
// instant ScriptedProvider, against the round trip of a bare `ws` server that answers the same
// message with the same chunk frame; samples alternate A/B in the same process.
// Writes bench/results/ttft.json.
import { writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import WebSocket, { WebSocketServer } from "ws";
import { isDoneFrame, machineInfo, numberArg, quantile, round, startBenchServer } from "./_server.js";

const SAMPLES = numberArg("samples", 1000);
const WARMUP = numberArg("warmup", 200);
const loadStart = loadavg()[0] ?? 0;
const CHUNK_PREFIX = Buffer.from('{"type":"chunk"');
const MESSAGE = JSON.stringify({ command: "chat_message", data: { content: "ttft benchmark" } });

/** A client whose `sample()` sends chat_message and resolves with ms to the first chunk once the turn is done. */
function openClient(url: string) {
  const ws = new WebSocket(url);
  let current: { t0: number; first: number; resolve: (ms: number) => void } | undefined;
  ws.on("message", (data: Buffer) => {
    const c = current;
    if (!c) throw new Error("frame outside a sample");
    if (c.first < 0 && data.subarray(0, CHUNK_PREFIX.length).equals(CHUNK_PREFIX))
      c.first = performance.now();
    if (isDoneFrame(data)) {
      current = undefined;
      c.resolve(c.first - c.t0);
    }
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    opened,
    ws,
    sample(): Promise<number> {
      return new Promise((resolve) => {
        current = { t0: performance.now(), first: -1, resolve };
        ws.send(MESSAGE);
      });
    },
  };
}

// agentwire: an instant one-chunk answer; every sample is a new thread (no history to load).
const server = await startBenchServer({
  provider: () => ({ text: ["Hello"], usage: { inputTokens: 3, outputTokens: 1 } }),
});
const agentwire = openClient(server.wsUrl);
await agentwire.opened;

// bare ws: answers each message with one chunk frame shaped like agentwire's first chunk, done included.
const bare = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
await new Promise<void>((resolve) => bare.once("listening", () => resolve()));
const threadId = "00000000-0000-4000-8000-000000000000";
let bareSeq = 0;
bare.on("connection", (socket) => {
  socket.on("message", () => {
    socket.send(
      JSON.stringify({
        type: "chunk",
        content: "Hello",
        done: true,
        parent_id: null,
        depth: 0,
        thread_id: threadId,
        seq: ++bareSeq,
      }),
    );
  });
});
const bareClient = openClient(`ws://127.0.0.1:${(bare.address() as AddressInfo).port}`);
await bareClient.opened;

const A: number[] = [];
const B: number[] = [];
for (let i = 0; i < WARMUP + SAMPLES; i++) {
  const a = await agentwire.sample();
  const b = await bareClient.sample();
  if (i < WARMUP) continue;
  A.push(a);
  B.push(b);
}

const q = (values: number[], p: number) => round(quantile(values, p), 3);
const report = {
  agentwire_p50_ms: q(A, 0.5),
  agentwire_p99_ms: q(A, 0.99),
  bare_rtt_p50_ms: q(B, 0.5),
  bare_rtt_p99_ms: q(B, 0.99),
  overhead_p50_ms: round(quantile(A, 0.5) - quantile(B, 0.5), 3),
  target: "agentwire_p50_ms - bare_rtt_p50_ms < 2",
  details: {
    samples: SAMPLES,
    warmup_samples: WARMUP,
    method:
      "wall time from ws.send(chat_message) to the arrival of the first chunk frame; agentwire and bare samples " +
      "alternate (A/B/A/B), each sample waits for its turn's done chunk before the next starts; no overlap",
    agentwire:
      "createServer + createChatServices + chatCommandHandlers, AUTH_MODE=none, SQLite temp file (WAL, " +
      "synchronous=NORMAL), pino at info to a null sink; each sample creates a new thread, so the path includes " +
      "thread + turn + user-message inserts, the thread/message/agent_state frames before the chunk, history load " +
      "and toolbelt; ScriptedProvider answers one text delta with no delay",
    bare_ws:
      "ws WebSocketServer (perMessageDeflate off) that answers every message with one JSON.stringify()d chunk frame " +
      "(thread_id/seq included): the transport's round trip",
    same_process: true,
    same_process_note: "client and both servers share one Node process (one JS thread)",
  },
  machine: {
    ...machineInfo(),
    loadavg_1m_at_start: round(loadStart),
    loadavg_1m_at_end: round(loadavg()[0] ?? 0),
  },
  date: new Date().toISOString(),
};

agentwire.ws.close();
bareClient.ws.close();
bare.close();
await server.close();
writeFileSync(new URL("../results/ttft.json", import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
