// `pnpm bench ttft [--samples N] [--instant]`: time from sending `chat_message` to the first `chunk`
// frame with a scripted provider whose first token comes at once, against the round trip of a bare `ws` server that answers the same
// message with the same chunk frame; samples alternate A/B in the same process. Then, with context
// management on, TTFT on a short thread vs a thread of 500 stored messages with a rolling summary,
// and the server time of that thread's context assembly. Writes bench/results/ttft.json.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextSettings, type ProviderRequest, SUMMARIZER_SYSTEM_PROMPT } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { loadThreadContext } from "@agentwire-chat/websocket";
import Database from "better-sqlite3";
import WebSocket, { WebSocketServer } from "ws";
import { BENCH_USER, seedLongThread } from "./_long-thread.js";
import { PacedProvider } from "./_paced-provider.js";
import {
  benchStart,
  isDoneFrame,
  machineInfo,
  numberArg,
  quantile,
  round,
  startBenchServer,
} from "./_server.js";

const SAMPLES = numberArg("samples", 1000);
const WARMUP = numberArg("warmup", 200);
const CONTEXT_SAMPLES = numberArg("context-samples", 300);
const LONG_MESSAGES = numberArg("long-messages", 500);
const ASSEMBLY_RUNS = numberArg("assembly-runs", 300);
// Each thread takes this many turns (2 rows each): 12 verbatim + 16 new + the message stays within 3/4
// of CONTEXT_MAX_MESSAGES (30), where summarizing starts beside a turn: no summarizer call is measured.
const TURNS_PER_THREAD = 9;
const start = benchStart();
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
    sample(message = MESSAGE): Promise<number> {
      return new Promise((resolve) => {
        current = { t0: performance.now(), first: -1, resolve };
        ws.send(message);
      });
    },
  };
}

// agentwire: the first text delta at once, the rest of the answer REST_MS later, as a model streams;
// every sample is a new thread (no history to load). With --instant the whole answer comes at once (the
// method before 2026-11-26): the turn then ends in the tick of its first token, so the first chunk
// waited for the turn's end (final row, ledger, tree) to commit with it, which no streamed answer does.
const INSTANT = process.argv.includes("--instant");
const REST_MS = 2;
let summarizerCalls = 0;
const respond = (request: ProviderRequest): ScriptedStep => {
  if (request.systemPrompt === SUMMARIZER_SYSTEM_PROMPT) summarizerCalls += 1;
  return { text: INSTANT ? ["Hello"] : ["Hello", "!"], usage: { inputTokens: 3, outputTokens: 1 } };
};
const server = await startBenchServer({ provider: INSTANT ? respond : new PacedProvider(respond, REST_MS) });
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

// The durable floor: the same bare server, but before it answers it commits what any server that
// keeps a chat must (SQLite, WAL, synchronous=NORMAL as agentwire): a new thread, its turn, the user's
// message and the chunk frame's log row, one transaction, prepared statements, a text key per table,
// nothing else (no ownership checks, no context, no model call).
const durableDir = mkdtempSync(join(tmpdir(), "agentwire-bench-ttft-durable-"));
const durableDb = new Database(join(durableDir, "floor.db"));
durableDb.pragma("journal_mode = WAL");
durableDb.pragma("synchronous = NORMAL");
durableDb.exec(`
  CREATE TABLE threads (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, title TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE turns (id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, status TEXT NOT NULL, started_at INTEGER NOT NULL);
  CREATE TABLE messages (id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL);
  CREATE TABLE frames (thread_id TEXT NOT NULL, seq INTEGER NOT NULL, frame TEXT NOT NULL, PRIMARY KEY (thread_id, seq)) WITHOUT ROWID;
`);
const insertThread = durableDb.prepare("INSERT INTO threads VALUES (?, ?, ?, ?)");
const insertTurn = durableDb.prepare("INSERT INTO turns VALUES (?, ?, ?, ?)");
const insertMessage = durableDb.prepare("INSERT INTO messages VALUES (?, ?, ?, ?, ?)");
const insertFrame = durableDb.prepare("INSERT INTO frames VALUES (?, ?, ?)");
const commitStart = durableDb.transaction((thread: string, content: string, frame: string) => {
  const now = Date.now();
  insertThread.run(thread, BENCH_USER, content, now);
  insertTurn.run(randomUUID(), thread, "running", now);
  insertMessage.run(randomUUID(), thread, 1, "user", content);
  insertFrame.run(thread, 1, frame);
});
const durable = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
await new Promise<void>((resolve) => durable.once("listening", () => resolve()));
durable.on("connection", (socket) => {
  socket.on("message", (data: Buffer) => {
    const { data: message } = JSON.parse(data.toString()) as { data: { content: string } };
    const thread = randomUUID();
    const frame = JSON.stringify({
      type: "chunk",
      content: "Hello",
      done: true,
      parent_id: null,
      depth: 0,
      thread_id: thread,
      seq: 1,
    });
    commitStart(thread, message.content, frame);
    socket.send(frame);
  });
});
const durableClient = openClient(`ws://127.0.0.1:${(durable.address() as AddressInfo).port}`);
await durableClient.opened;

const A: number[] = [];
const B: number[] = [];
const D: number[] = [];
for (let i = 0; i < WARMUP + SAMPLES; i++) {
  const a = await agentwire.sample();
  const b = await bareClient.sample();
  const d = await durableClient.sample();
  if (i < WARMUP) continue;
  A.push(a);
  B.push(b);
  D.push(d);
}

// Part 2: context management on; a short thread vs a 500-message thread with a summary, A/B, plus
// the bare round trip again as the same-run baseline of this part.
const settings = ContextSettings.parse({});
server.chat.context = settings;
const threadsNeeded = Math.ceil((CONTEXT_SAMPLES + WARMUP / 4) / TURNS_PER_THREAD);
const longThreads: string[] = [];
const shortThreads: string[] = [];
for (let i = 0; i < threadsNeeded; i++) {
  longThreads.push(
    await seedLongThread(server.repos, LONG_MESSAGES, { tail: settings.CONTEXT_VERBATIM_MESSAGES }),
  );
  shortThreads.push(await seedLongThread(server.repos, 2, undefined));
}
const onThread = (threadId: string) =>
  JSON.stringify({ command: "chat_message", data: { content: "ttft benchmark", thread_id: threadId } });
const LONG: number[] = [];
const SHORT: number[] = [];
const BARE2: number[] = [];
for (let i = 0; i < WARMUP / 4 + CONTEXT_SAMPLES; i++) {
  const thread = Math.floor(i / TURNS_PER_THREAD);
  const l = await agentwire.sample(onThread(longThreads[thread] as string));
  const s = await agentwire.sample(onThread(shortThreads[thread] as string));
  const b = await bareClient.sample();
  if (i < WARMUP / 4) continue;
  LONG.push(l);
  SHORT.push(s);
  BARE2.push(b);
}

// Context assembly of a fresh 500-message thread, timed in the server's process: what runChatAgent
// does before the model call (summary, scratchpad and uncovered rows read, then the assembly); beside
// it, reading all 500 rows, which the summary's coverage spares.
const timeAssembly = async (threadId: string) => {
  const total: number[] = [];
  const allRows: number[] = [];
  for (let i = 0; i < ASSEMBLY_RUNS; i++) {
    const t0 = performance.now();
    await loadThreadContext(server.repos, BENCH_USER, threadId, settings, 128_000);
    const t1 = performance.now();
    await server.repos.messages.list(BENCH_USER, threadId);
    allRows.push(performance.now() - t1);
    total.push(t1 - t0);
  }
  return { total, allRows };
};
const longAssembly = await timeAssembly(
  await seedLongThread(server.repos, LONG_MESSAGES, { tail: settings.CONTEXT_VERBATIM_MESSAGES }),
);
const shortAssembly = await timeAssembly(await seedLongThread(server.repos, 2, undefined));

const q = (values: number[], p: number) => round(quantile(values, p), 3);
const report = {
  agentwire_p50_ms: q(A, 0.5),
  agentwire_p99_ms: q(A, 0.99),
  bare_rtt_p50_ms: q(B, 0.5),
  bare_rtt_p99_ms: q(B, 0.99),
  overhead_p50_ms: round(quantile(A, 0.5) - quantile(B, 0.5), 3),
  target: "agentwire_p50_ms - bare_rtt_p50_ms < 0.5, agentwire_p99_ms < 3 (issue 22)",
  baseline_floor: {
    bare_durable_p50_ms: q(D, 0.5),
    bare_durable_p99_ms: q(D, 0.99),
    overhead_p50_ms: round(quantile(D, 0.5) - quantile(B, 0.5), 3),
    agentwire_over_durable_p50_ms: round(quantile(A, 0.5) - quantile(D, 0.5), 3),
    method:
      "the bare ws server that, before answering, commits a new thread, its turn, the user's message and the " +
      "chunk frame's log row in one SQLite transaction (WAL, synchronous=NORMAL, prepared statements, a text key " +
      "per table): what a server that keeps the chat durably must do before the first chunk; samples alternate A/B/D",
  },
  long_thread: {
    messages: LONG_MESSAGES,
    context_assembly_p50_ms: q(longAssembly.total, 0.5),
    context_assembly_p99_ms: q(longAssembly.total, 0.99),
    reading_all_rows_p50_ms: q(longAssembly.allRows, 0.5),
    short_thread_context_assembly_p50_ms: q(shortAssembly.total, 0.5),
    long_thread_ttft_p50_ms: q(LONG, 0.5),
    long_thread_ttft_p99_ms: q(LONG, 0.99),
    short_thread_ttft_p50_ms: q(SHORT, 0.5),
    short_thread_ttft_p99_ms: q(SHORT, 0.99),
    bare_rtt_p50_ms: q(BARE2, 0.5),
    ttft_long_minus_short_p50_ms: round(quantile(LONG, 0.5) - quantile(SHORT, 0.5), 3),
    summarizer_calls: summarizerCalls,
    target: "context_assembly_p50_ms < 5 and long_thread_ttft_p50_ms ≈ short_thread_ttft_p50_ms",
    method:
      `context management on (defaults: 12 verbatim, 40 unsummarized messages at most); ${threadsNeeded} threads ` +
      `of ${LONG_MESSAGES} stored messages (user, tool call, tool result, answer; ~0.5 KB each) whose summary ` +
      `covers all but the last 12, with 3 scratchpad items, and as many 2-message threads; samples alternate ` +
      `long/short/bare, each thread takes ${TURNS_PER_THREAD} turns (no turn reaches the summarizer: ` +
      "summarizer_calls counts any); context assembly = loadThreadContext (summary, scratchpad, the rows after " +
      `the summary, assembleContext) on a fresh ${LONG_MESSAGES}-message thread, ${ASSEMBLY_RUNS} runs in the server's process`,
  },
  details: {
    samples: SAMPLES,
    warmup_samples: WARMUP,
    method:
      "wall time from ws.send(chat_message) to the arrival of the first chunk frame; agentwire, bare and durable-floor samples " +
      "alternate (A/B/D), each sample waits for its turn's done chunk before the next starts; no overlap",
    agentwire:
      "createServer + createChatServices + chatCommandHandlers, AUTH_MODE=none, SQLite temp file (WAL, " +
      "synchronous=NORMAL), pino at info to a null sink; each sample creates a new thread, so the path includes " +
      "thread + turn + user-message inserts, the thread/message/agent_state frames before the chunk, history load " +
      "and toolbelt; the provider (ScriptedProvider, paced by bench/src/_paced-provider.ts) sends its first text delta at once and the rest 2 ms later, as a model streams; with --instant (the method before 2026-11-26) the whole answer at once, so the turn ends in the tick of its first token and its first chunk commits with the turn's end",
    instant: INSTANT,
    bare_ws:
      "ws WebSocketServer (perMessageDeflate off) that answers every message with one JSON.stringify()d chunk frame " +
      "(thread_id/seq included): the transport's round trip",
    same_process: true,
    same_process_note: "client and both servers share one Node process (one JS thread)",
  },
  machine: machineInfo(start),
  date: new Date().toISOString(),
};

agentwire.ws.close();
bareClient.ws.close();
durableClient.ws.close();
bare.close();
durable.close();
durableDb.close();
rmSync(durableDir, { recursive: true, force: true });
await server.close();
writeFileSync(new URL("../results/ttft.json", import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
process.exit(0);
