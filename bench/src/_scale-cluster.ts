// The servers of `pnpm bench scale`: a real redis-server, a shared database (a real Postgres, or
// one SQLite file), and agentwire instances as real processes (`apps/server/src/main.ts`, the
// deployed entry) on them. Each instance reports its own event-loop delay, CPU and RSS through
// `GET /metrics` (prom-client's default metrics); its log lines are tallied, not printed.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startPostgres, type TestPostgres } from "@agentwire-chat/testkit/postgres-server";
import { startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { serverProfileArgv } from "./_fork.js";

const root = join(import.meta.dirname, "../..");
const main = join(root, "apps/server/src/main.ts");

export type DatabaseKind = "sqlite" | "postgres";

/** Redis and the database the instances share; `env` is what every instance gets to reach them. */
export interface Backends {
  env: Record<string, string>;
  /** The SQLite file instances must not create when they are on Postgres. */
  sqlitePath: string;
  stop(): Promise<void>;
}

/** Starts a throwaway redis-server and the shared database (a fresh Postgres cluster, or a temp SQLite file). */
export async function startBackends(db: DatabaseKind): Promise<Backends> {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-bench-scale-"));
  const sqlitePath = join(dir, "shared.db");
  let redis: TestRedis | undefined;
  let postgres: TestPostgres | undefined;
  try {
    redis = await startRedis();
    const env: Record<string, string> = { REDIS_URL: redis.url, DATABASE_PATH: sqlitePath };
    if (db === "postgres") {
      postgres = await startPostgres();
      env.DATABASE_URL = await postgres.createDatabase("agentwire_bench");
    }
    return {
      env,
      sqlitePath,
      stop: async () => {
        await Promise.all([redis?.stop(), postgres?.stop()]);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all([redis?.stop(), postgres?.stop()]);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** A running agentwire process and a tally of what it logged. */
export interface Instance {
  name: string;
  proc: ChildProcess;
  /** http://127.0.0.1:PORT */
  url: string;
  log: LogTally;
}

/** Log lines by level, and the first few warnings and errors by message. */
export type LogTally = {
  warn: number;
  error: number;
  fatal: number;
  messages: Record<string, number>;
  /** The `err.message` of the first few error lines. */
  first_errors: string[];
};

/** Spawns `node apps/server/src/main.ts` with `env` and waits for its "agentwire listening" line. */
export async function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  const proc = spawn(process.execPath, [...serverProfileArgv(), "--import", "tsx", main], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", PORT: "0", INSTANCE_ID: name, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: LogTally = { warn: 0, error: 0, fatal: 0, messages: {}, first_errors: [] };
  let stderr = "";
  proc.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    // The pipe is read to the end: a full pipe would block the server's logger.
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      const entry = parseLine(line);
      if (!entry) return;
      if (entry.msg === "agentwire listening" && entry.url) resolve(entry.url);
      tally(log, entry);
    });
    proc.once("exit", (code, signal) =>
      reject(new Error(`instance ${name} exited (${code ?? signal}) before listening:\n${stderr}`)),
    );
  });
  return { name, proc, url, log };
}

type LogLine = { level?: number; msg?: string; url?: string; err?: { message?: string; stack?: string } };

function parseLine(line: string): LogLine | undefined {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
}

function tally(log: LogTally, entry: LogLine): void {
  const level = entry.level ?? 30;
  if (level < 40) return;
  if (level >= 60) log.fatal += 1;
  else if (level >= 50) log.error += 1;
  else log.warn += 1;
  const key = `${level >= 50 ? "error" : "warn"}: ${entry.msg ?? "(no msg)"}`;
  if (key in log.messages || Object.keys(log.messages).length < 20)
    log.messages[key] = (log.messages[key] ?? 0) + 1;
  if (level >= 50 && log.first_errors.length < 5)
    log.first_errors.push(
      `${entry.msg ?? ""}: ${entry.err?.message ?? "(no err)"}${whereFrom(entry.err?.stack)}`,
    );
}

/** The first few stack lines inside agentwire's own packages, to say where an error came from. */
function whereFrom(stack: string | undefined): string {
  const ours = (stack ?? "")
    .split("\n")
    .filter((line) => line.includes("/packages/") || line.includes("/apps/"))
    .slice(0, 4)
    .map((line) => line.trim().replace(/\(.*\/(packages|apps)\//, "($1/"));
  return ours.length > 0 ? ` [${ours.join(" < ")}]` : "";
}

/** True when an instance on Postgres created the SQLite file anyway (it ignored DATABASE_URL). */
export function sqliteUsed(backends: Backends): boolean {
  return existsSync(backends.sqlitePath);
}

/** What an instance reports about itself at one scrape; lag figures cover the time since the previous scrape. */
export type InstanceMetrics = {
  lag_p50_ms: number;
  lag_p99_ms: number;
  lag_max_ms: number;
  cpu_s: number;
  rss_mb: number;
  open_sockets: number;
  turns_ended: Record<string, number>;
};

/**
 * prom-client's event-loop histogram (monitorEventLoopDelay, 20 ms resolution) is reset at every
 * scrape, so one scrape reports the delay since the previous one. Its samples include the
 * resolution: it is subtracted, as in the other benches.
 */
const LAG_RESOLUTION_MS = 20;

/**
 * Scrapes `GET /metrics` of an instance. With AUTH_MODE=token the route wants a bearer token (an API
 * token will do); a refusal throws rather than turning every figure into NaN.
 */
export async function scrapeMetrics(url: string, token: string): Promise<InstanceMetrics> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`GET ${url}/metrics: HTTP ${response.status}`);
  const text = await response.text();
  const values = parsePrometheus(text);
  const ms = (name: string) => Math.max(0, (values.get(name) ?? Number.NaN) * 1000 - LAG_RESOLUTION_MS);
  const turnsEnded: Record<string, number> = {};
  for (const [key, value] of values) {
    const status = /^agentwire_turns_ended_total\{status="(\w+)"\}$/.exec(key)?.[1];
    if (status) turnsEnded[status] = value;
  }
  return {
    lag_p50_ms: ms("nodejs_eventloop_lag_p50_seconds"),
    lag_p99_ms: ms("nodejs_eventloop_lag_p99_seconds"),
    lag_max_ms: ms("nodejs_eventloop_lag_max_seconds"),
    cpu_s: values.get("process_cpu_seconds_total") ?? Number.NaN,
    rss_mb: (values.get("process_resident_memory_bytes") ?? Number.NaN) / 2 ** 20,
    open_sockets: values.get("agentwire_open_sockets") ?? Number.NaN,
    turns_ended: turnsEnded,
  };
}

/** `name{labels} value` lines of the Prometheus text format, keyed by `name{labels}`. */
export function parsePrometheus(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const space = line.lastIndexOf(" ");
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}

// How many turn leases exist and the least time any of them has left (PTTL), in one round trip.
const LEASES_SCRIPT = `local keys = redis.call("KEYS", ARGV[1]) local least = -1
for _, key in ipairs(keys) do local ttl = redis.call("PTTL", key)
if ttl >= 0 and (least < 0 or ttl < least) then least = ttl end end
return {#keys, least}`;

// The least and the most time (PTTL) the leases held by one instance (values `<instance> <turn>`) have left.
const INSTANCE_LEASES_SCRIPT = `local least, most, n = -1, -1, 0
for _, key in ipairs(redis.call("KEYS", ARGV[1])) do
local value = redis.call("GET", key)
if value and string.sub(value, 1, #ARGV[2] + 1) == ARGV[2] .. " " then
local ttl = redis.call("PTTL", key) n = n + 1
if least < 0 or ttl < least then least = ttl end
if ttl > most then most = ttl end end end
return {n, least, most}`;

/**
 * When the leases of a killed instance lapse: read once, right after the kill (nothing renews them
 * any more), as ms from `t0`. Another instance can take the turns over only from then on.
 */
export function instanceLeasesLapse(
  redisUrl: string,
  instanceId: string,
  t0: number,
): Promise<{ leases: number; first_ms: number; last_ms: number } | undefined> {
  const { hostname, port } = new URL(redisUrl);
  const at = performance.now();
  return new Promise((resolve) => {
    execFile(
      "redis-cli",
      ["-h", hostname, "-p", port, "EVAL", INSTANCE_LEASES_SCRIPT, "0", "aw:lease:*", instanceId],
      (error, stdout) => {
        const [leases, least, most] = stdout.trim().split("\n").map(Number);
        if (error || leases === undefined || least === undefined || most === undefined || leases === 0)
          return resolve(undefined);
        resolve({ leases, first_ms: at - t0 + least, last_ms: at - t0 + most });
      },
    );
  });
}

/** One look at the turn leases in Redis: a live instance renews each before it runs low. */
export type LeaseSample = { at_ms: number; leases: number; least_ttl_ms: number };

/**
 * Samples the leases every `everyMs` with redis-cli (the bench has no Redis client of its own) until
 * the returned stop() is called. A lease whose TTL nears 0 while its turn runs is about to be taken
 * for a dead instance's.
 */
export function sampleLeases(redisUrl: string, everyMs: number, t0: number) {
  const { hostname, port } = new URL(redisUrl);
  const samples: LeaseSample[] = [];
  let stopped = false;
  const once = () =>
    new Promise<void>((resolve) => {
      execFile(
        "redis-cli",
        ["-h", hostname, "-p", port, "EVAL", LEASES_SCRIPT, "0", "aw:lease:*"],
        (error, stdout) => {
          const [leases, least] = stdout.trim().split("\n").map(Number);
          if (!error && leases !== undefined && least !== undefined)
            samples.push({ at_ms: Math.round(performance.now() - t0), leases, least_ttl_ms: least });
          resolve();
        },
      );
    });
  const loop = (async () => {
    while (!stopped) {
      await once();
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** Sends SIGTERM and waits for the exit; SIGKILL after `graceMs`. */
export async function stopInstance(instance: Instance, graceMs = 10_000): Promise<void> {
  const { proc } = instance;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}
