// A real agentwire server for the benchmarks: the same setup as the websocket chat tests
// (createServer + createChatServices + chatCommandHandlers, AUTH_MODE=none, a temp SQLite file),
// rebuilt from public exports because bench cannot import test files.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BudgetLimits, createProviderRegistry, type Provider } from "@agentwire-chat/agents";
import { ScriptedProvider, type ScriptedResponder } from "@agentwire-chat/agents/testing";
import { PROTOCOL_V1, PROTOCOL_V1_NESTED } from "@agentwire-chat/protocol/subprotocols";
import type { Repositories } from "@agentwire-chat/storage";
import { openDatabase, sqliteStorage } from "@agentwire-chat/storage/sqlite";
import {
  admissionDefaults,
  type ChatServices,
  createChatServices,
  createLogger,
  createServer,
  type ServerLimitsInput,
  startAdmission,
} from "@agentwire-chat/websocket";

/**
 * The subprotocols a bench client offers: it takes nested subtask text, like the CLI and the web
 * client (a socket without `agentwire.v1+nested` is flat: no chunk of depth > 0, seqs with gaps).
 */
export const NESTED_SUBPROTOCOLS = [PROTOCOL_V1_NESTED, PROTOCOL_V1];

/**
 * Milliseconds on CLOCK_MONOTONIC (`process.hrtime`), which every process of the machine shares: a
 * time taken in one bench process compares with one taken in another.
 */
export const monoMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Limits that keep the per-user cap and the frame rate limiter out of the way of a benchmark. */
export const BENCH_SERVER_LIMITS: ServerLimitsInput = {
  maxConnectionsPerUser: 1_000_000,
  messagesPerSecond: 1_000_000,
  messageBurst: 1_000_000,
  rateLimitStrikes: 1_000_000,
};

export interface BenchServer {
  app: Awaited<ReturnType<typeof createServer>>["app"];
  chat: ChatServices;
  /** The server's own repositories (seeding threads, timing reads). */
  repos: Repositories;
  /** ws://127.0.0.1:PORT/ws */
  wsUrl: string;
  close(): Promise<void>;
}

export interface BenchServerOptions {
  /** The provider with id `scripted`; a ScriptedProvider over `respond` when a function is given. */
  provider: Provider | ScriptedResponder;
  limits?: ServerLimitsInput;
  budget?: Partial<BudgetLimits>;
  /** Pino level; lines go nowhere, but pino still formats them (the production cost). */
  logLevel?: string;
  /**
   * The admission queue with the server's defaults (MAX_LIVE_TURNS, the lag and utilization brakes),
   * as `startServer` runs it; off, every turn starts at once.
   */
  admission?: boolean;
}

/** Starts a server on 127.0.0.1, ephemeral port, fresh SQLite file, AUTH_MODE=none, provider `scripted`. */
export async function startBenchServer(options: BenchServerOptions): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-bench-"));
  const database = openDatabase({ path: join(dir, "bench.db") });
  const logger = createLogger({ level: options.logLevel ?? "info", destination: { write: () => {} } });
  const provider =
    typeof options.provider === "function" ? new ScriptedProvider(options.provider) : options.provider;
  const providers = createProviderRegistry(
    {},
    { extraProviders: [provider], extraDefaultModels: { [provider.id]: "scripted-1" } },
  );
  // AUTH_MODE=none has one user, so as in apps/server's config its bound per user is the total's.
  const running = options.admission
    ? startAdmission({ ...admissionDefaults, queueMaxPerUser: admissionDefaults.queueMax })
    : undefined;
  const admission = running?.queue;
  const chat = createChatServices({
    ...(admission && { admission }),
    providers,
    defaults: { provider: provider.id },
    ...(options.budget && { limits: options.budget }),
  });
  const storage = sqliteStorage(database);
  const { app } = await createServer({
    storage,
    logger,
    auth: { mode: "none" },
    allowedOrigins: [],
    limits: { ...BENCH_SERVER_LIMITS, ...options.limits },
    services: { chat },
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    app,
    chat,
    repos: storage.repos,
    wsUrl: `ws://127.0.0.1:${address.port}/ws`,
    async close() {
      running?.stop();
      await app.close();
      // The storage's close: its checkpoint worker stops and the tick's writes commit, then the file closes.
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { type BenchStart, benchStart, machineInfo } from "./_machine.js";

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The q-quantile (0..1) of a list, nearest rank on a sorted copy. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

export const median = (values: readonly number[]) => quantile(values, 0.5);

/** `--name value` from argv, as a number, or the default. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number`);
  return value;
}

/**
 * `"seq":N` of a frame's JSON, found without parsing it all (seq is stamped last, but for a merged
 * chunk's `seq_start`, whose key does not match); -1 when absent.
 */
export function seqOf(data: Buffer): number {
  const at = data.lastIndexOf(SEQ_KEY);
  return at < 0 ? -1 : digitsAt(data, at + SEQ_KEY.length);
}

/** The non-negative integer written at `from` in a frame's bytes. */
export function digitsAt(data: Buffer, from: number): number {
  let n = 0;
  for (let i = from; i < data.length; i++) {
    const c = data[i] as number;
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  return n;
}
const SEQ_KEY = Buffer.from('"seq":');

/** `"seq_start":N` of a merged text chunk (a slow socket's, see protocol.md), or -1. */
export function seqStartOf(data: Buffer): number {
  const at = data.lastIndexOf(SEQ_START_KEY);
  return at < 0 ? -1 : digitsAt(data, at + SEQ_START_KEY.length);
}
const SEQ_START_KEY = Buffer.from('"seq_start":');

const CHUNK_PREFIX = Buffer.from('{"type":"chunk"');
const DONE_KEY = Buffer.from('"done":true');

/** True for the turn's final `chunk {done:true}` frame. */
export function isDoneFrame(data: Buffer): boolean {
  return data.subarray(0, CHUNK_PREFIX.length).equals(CHUNK_PREFIX) && data.includes(DONE_KEY);
}
