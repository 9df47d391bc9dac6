// `pnpm bench scale [--sockets 2000] [--db sqlite|postgres] …`: two real agentwire instances on one
// Redis and one database, N sockets spread over them, one 3-subtask turn per socket; halfway through
// (by text chunks delivered) instance `a` is killed with SIGKILL. Its clients reconnect to `b` and
// resume; once a's leases lapse, b continues a's turns from their last checkpoints (`--recovery
// interrupt`: ends them `interrupted`, the behaviour before). Reports frames lost (every frame a client
// had must be in the replay; every final sequence gapless with one done), turn endings per instance
// that ran them, kill → first continued frame beside the lease, resume latency on the survivor,
// event-loop lag per instance (from its /metrics), load average. Writes bench/results/scale.json.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { EnvSchema } from "../../apps/server/src/config.js";
import { describeProblem, firstContinuedAt, ScaleClient, type Verdict, verify } from "./_scale-client.js";
import {
  type DatabaseKind,
  type Instance,
  type InstanceMetrics,
  instanceLeasesLapse,
  type LeaseSample,
  sampleLeases,
  scrapeMetrics,
  sqliteUsed,
  startBackends,
  startInstance,
  stopInstance,
} from "./_scale-cluster.js";
import type { ScaleTurnShape } from "./_scale-provider.js";
import { benchStart, machineInfo, numberArg, quantile, round } from "./_server.js";

/** `--name value` from argv, one of `allowed`, or the default. */
function choiceArg<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = process.argv[i + 1] as T;
  if (!allowed.includes(value)) throw new Error(`--${name} takes ${allowed.join("|")}`);
  return value;
}

// Postgres once the server reads DATABASE_URL; a run checks the instances really used it.
const postgresAvailable = "DATABASE_URL" in EnvSchema.shape;
const DB: DatabaseKind = choiceArg("db", ["sqlite", "postgres"], postgresAvailable ? "postgres" : "sqlite");
const SOCKETS = numberArg("sockets", 2000);
const RAMP_MS = numberArg("ramp-ms", 1000);
const KILL_AT = numberArg("kill-at", 0.5);
const LEASE_MS = numberArg("lease-ms", 15_000);
const WARMUP = numberArg("warmup", 20);
const CONNECT_PARALLEL = numberArg("connect-parallel", 50);
const RECONNECT_JITTER_MS = numberArg("reconnect-jitter-ms", 0);
const TIMEOUT_MS = numberArg("timeout-ms", 120_000);
const RESUME_FROM = choiceArg("resume-from", ["zero", "last"], "zero");
const LOG_LEVEL = choiceArg("log-level", ["info", "warn"], "info");
// TURN_RECOVERY of both instances: continue (the default) or interrupt (the behaviour before it).
const RECOVERY = choiceArg("recovery", ["continue", "interrupt"], "continue");
/** How a killed turn a client resumed on b must end. */
const KILLED_TURN_ENDS = RECOVERY === "continue" ? "complete" : "interrupted";
const shape: ScaleTurnShape = {
  subtasks: numberArg("subtasks", 3),
  subtaskChunks: numberArg("subtask-chunks", 40),
  finalChunks: numberArg("final-chunks", 20),
  chunkMs: numberArg("chunk-ms", 50),
  firstTokenMs: numberArg("first-token-ms", 300),
};
const chunksPerTurn = shape.subtasks * shape.subtaskChunks + shape.finalChunks;
const start = benchStart();
const load: { start: number[]; kill?: number[]; end?: number[] } = { start: loadavg() };

// --- servers -----------------------------------------------------------------------------------------
console.log(
  `scale: ${SOCKETS} sockets on 2 instances, db ${DB}, lease ${LEASE_MS} ms, recovery ${RECOVERY}…`,
);
const backends = await startBackends(DB);
const users = Array.from({ length: SOCKETS + 2 * WARMUP }, (_, i) => ({
  user: `u${i}`,
  token: `bench-${i}-${randomBytes(6).toString("hex")}`,
}));
// /metrics takes any API token with AUTH_MODE=token: a user of its own, who opens no socket.
const metricsUser = { user: "metrics", token: `bench-metrics-${randomBytes(6).toString("hex")}` };
const scrape = (instance: Instance) => scrapeMetrics(instance.url, metricsUser.token);
const env: Record<string, string> = {
  ...backends.env,
  // One user per socket: the per-user connection cap stays out of the way, as with real users.
  AUTH_MODE: "token",
  AUTH_TOKENS: [...users, metricsUser].map((u) => `${u.user}:${u.token}`).join(","),
  AGENTWIRE_SCRIPTED_PROVIDER: new URL("./_scale-provider.ts", import.meta.url).pathname,
  DEFAULT_PROVIDER: "scripted",
  TURN_LEASE_MS: String(LEASE_MS),
  TURN_RECOVERY: RECOVERY,
  LOG_LEVEL,
  BENCH_SCALE_TURN: JSON.stringify(shape),
};
const instances: Instance[] = [];
let clients: ScaleClient[] = [];
process.once("exit", () => {
  for (const i of instances) i.proc.kill("SIGKILL");
});
// A failed run still says what the instances logged (the exit handlers stop every server).
const fail = (error: unknown) => {
  console.error("scale: failed:", error);
  for (const i of instances) console.error(`instance ${i.name} log:`, JSON.stringify(i.log, null, 2));
  process.exit(1);
};
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);
// One after the other: the second finds the migrations applied.
const a = await startInstance("a", env);
instances.push(a);
const b = await startInstance("b", env);
instances.push(b);
if (DB === "postgres" && sqliteUsed(backends)) {
  await cleanup();
  throw new Error(
    "--db postgres: the instances opened the SQLite file, not DATABASE_URL (run with --db sqlite)",
  );
}
const wsUrl = (instance: Instance) => `${instance.url.replace("http", "ws")}/ws`;

// --- warm-up: a few whole turns on each instance -------------------------------------------------------
await Promise.all(
  [a, b].map((instance, n) =>
    runTurns(
      instance,
      users.slice(SOCKETS + n * WARMUP, SOCKETS + (n + 1) * WARMUP).map((u) => u.token),
    ),
  ),
);

// --- the run -----------------------------------------------------------------------------------------
let aChunks = 0;
let finished = 0;
let expectedDone = SOCKETS;
const killThreshold = Math.ceil(KILL_AT * Math.ceil(SOCKETS / 2) * chunksPerTurn);
let triggerKill: () => void = () => {};
const killDue = new Promise<void>((resolve) => {
  triggerKill = resolve;
});
let allDone: () => void = () => {};
const everyTurnDone = new Promise<void>((resolve) => {
  allDone = resolve;
});
clients = users.slice(0, SOCKETS).map(
  (u, i) =>
    new ScaleClient(i, u.token, {
      onTextChunk(client) {
        if (client.first.instance !== "a") return;
        aChunks += 1;
        if (aChunks >= killThreshold) triggerKill();
      },
      onDone() {
        finished += 1;
        if (finished >= expectedDone) allDone();
      },
    }),
);
const instanceOf = (i: number) => (i % 2 === 0 ? a : b);
for (let i = 0; i < SOCKETS; i += CONNECT_PARALLEL) {
  await Promise.all(
    clients
      .slice(i, i + CONNECT_PARALLEL)
      .map((c) => c.connect(wsUrl(instanceOf(c.index)), instanceOf(c.index).name)),
  );
}
console.log(`scale: ${SOCKETS} sockets connected; starting turns`);

// A scrape resets each instance's lag histogram: this one opens the measured window.
await Promise.all([scrape(a), scrape(b)]);
const clientLag = monitorEventLoopDelay({ resolution: 10 });
clientLag.enable();
const t0 = performance.now();
const leaseSampler = sampleLeases(backends.env.REDIS_URL as string, 500, t0);
const ramped = new Promise<void>((resolve) => {
  for (const [i, client] of clients.entries()) {
    setTimeout(
      () => {
        client.startTurn();
        if (i === clients.length - 1) resolve();
      },
      (i / SOCKETS) * RAMP_MS,
    );
  }
});
await ramped;
const killTimeout = setTimeout(triggerKill, TIMEOUT_MS);
await killDue;
clearTimeout(killTimeout);

// --- the kill ----------------------------------------------------------------------------------------
const [aUntilKill, bUntilKill] = await Promise.all([scrape(a), scrape(b)]);
load.kill = loadavg();
const onA = clients.filter((c) => c.first.instance === "a");
const resumeErrors: string[] = [];
for (const client of onA) {
  client.first.ws.once("close", () => {
    if (client.doneAt !== undefined || !client.threadId) return;
    const delay = RECONNECT_JITTER_MS > 0 ? Math.random() * RECONNECT_JITTER_MS : 0;
    setTimeout(() => {
      client.resumeOn(wsUrl(b), b.name, RESUME_FROM).catch((err: Error) => {
        resumeErrors.push(err.message);
      });
    }, delay);
  });
}
const killedAt = performance.now();
a.proc.kill("SIGKILL");
const aExit = new Promise<void>((resolve) => a.proc.once("exit", () => resolve()));
await aExit;
// Read once a is gone: its leases then only run down, and b may take its turns once they lapse.
const aLeases = await instanceLeasesLapse(backends.env.REDIS_URL as string, "a", killedAt);
const atKill = {
  ms_since_first_chat_message: Math.round(killedAt - t0),
  a_chunks_delivered_share: round(aChunks / (onA.length * chunksPerTurn), 3),
  a_turns_done: onA.filter((c) => c.doneAt !== undefined).length,
  a_turns_without_thread: onA.filter((c) => !c.threadId).length,
  b_turns_done: clients.filter((c) => c.first.instance === "b" && c.doneAt !== undefined).length,
};
// A client on A that never saw its thread frame has nothing to resume: it is reported, not awaited.
expectedDone -= atKill.a_turns_without_thread;
if (finished >= expectedDone) allDone();
console.log(`scale: killed a at ${atKill.ms_since_first_chat_message} ms; waiting for every turn's done`);

const doneTimeout = setTimeout(allDone, TIMEOUT_MS);
await everyTurnDone;
clearTimeout(doneTimeout);
const allDoneAt = performance.now();
clientLag.disable();
await leaseSampler.stop();
const bAfterKill = await scrape(b);
load.end = loadavg();

// --- checks ------------------------------------------------------------------------------------------
const verdicts = clients.map((c) => ({ client: c, verdict: verify(c, RESUME_FROM) }));
const rowStatus = await storedStatuses(b);
const perInstance = (name: string) => {
  const mine = verdicts.filter((v) => v.client.first.instance === name);
  const statuses: Record<string, number> = {};
  for (const { verdict } of mine) statuses[verdict.status] = (statuses[verdict.status] ?? 0) + 1;
  return {
    turns: mine.length,
    ended: statuses,
    without_done: mine.filter((v) => v.verdict.dones === 0).length,
    resumed_on_survivor: mine.filter((v) => v.client.resume).length,
  };
};
const sum = (f: (v: Verdict) => number) => verdicts.reduce((n, v) => n + f(v.verdict), 0);
const turnsOn = { a: perInstance("a"), b: perInstance("b") };
const resumed = clients.filter((c) => c.resume);
const ms = (values: number[]) => ({
  n: values.length,
  p50: round(quantile(values, 0.5)),
  p99: round(quantile(values, 0.99)),
  max: round(quantile(values, 1)),
});
const since = (pick: (c: ScaleClient) => number | undefined, from: (c: ScaleClient) => number) =>
  ms(
    resumed
      .map((c) => {
        const at = pick(c);
        return at === undefined ? undefined : at - from(c);
      })
      .filter((v): v is number => v !== undefined),
  );
const framesLost = sum((v) => v.lost) + sum((v) => v.gaps);
const survivorInterrupted = turnsOn.b.ended.interrupted ?? 0;
// a's turns still running at the kill whose clients resumed on b: each must end as RECOVERY says.
const killed = verdicts.filter((v) => v.client.resume !== undefined);
const killedEnded = (status: string) => killed.filter((v) => v.verdict.status === status).length;
const killToContinued = since(
  (c) => (c.resume ? firstContinuedAt(c.resume) : undefined),
  () => killedAt,
);
// From the first of a's leases to lapse: the part of kill → first continued frame that is the
// survivor's (the rest, 2/3 to 1 lease, is the lease a's last heartbeat had just renewed).
const lapseToContinued = since(
  (c) => (c.resume ? firstContinuedAt(c.resume) : undefined),
  () => killedAt + (aLeases?.first_ms ?? Number.NaN),
);
const checks = {
  frames_lost_is_zero: framesLost === 0,
  no_duplicate_seqs: sum((v) => v.duplicates) === 0,
  // A client of the killed instance that never got its thread frame has nothing to resume.
  every_turn_one_done_last: verdicts
    .filter((v) => v.client.threadId !== undefined)
    .every((v) => v.verdict.dones === 1 && v.verdict.doneLast),
  every_turn_got_its_thread: verdicts.every((v) => v.client.threadId !== undefined),
  survivor_turns_all_complete: (turnsOn.b.ended.complete ?? 0) === turnsOn.b.turns,
  interrupted_only_on_killed_instance: survivorInterrupted === 0,
  // continue: every killed turn completes on b; interrupt: every one ends interrupted there.
  killed_turns_all_end_as_recovery_says: killed.length > 0 && killedEnded(KILLED_TURN_ENDS) === killed.length,
  stored_rows_agree_with_frames: rowStatus.disagree === 0 && rowStatus.failed === 0,
};

const lag = (m: InstanceMetrics) => ({
  p50: round(m.lag_p50_ms),
  p99: round(m.lag_p99_ms),
  max: round(m.lag_max_ms),
});
const avg = (l: number[]) => l.map((v) => round(v));
const report = {
  result: {
    frames_lost: framesLost,
    duplicate_seqs: sum((v) => v.duplicates),
    turns: turnsOn,
    turns_interrupted_on_survivor: survivorInterrupted,
    killed_turns: {
      resumed_on_survivor: killed.length,
      complete: killedEnded("complete"),
      interrupted: killedEnded("interrupted"),
      // Clients that saw `agent_state resumed`: the survivor continued the turn from a checkpoint.
      continued: killed.filter((v) => v.client.resume?.continued).length,
    },
    // The survivor's first frame of each killed turn (continued or, with --recovery interrupt, its
    // closing frames), beside the lease it had to wait out; the target is p99 within 1.5 leases.
    kill_to_first_continued_frame_ms: {
      p50: killToContinued.p50,
      p99: killToContinued.p99,
      lease_ms: LEASE_MS,
      p99_in_leases: round(killToContinued.p99 / LEASE_MS, 2),
      p99_within_1_5_leases: killToContinued.p99 <= 1.5 * LEASE_MS,
      // When a's leases lapsed (ms after the kill) and the survivor's part: lapse → first continued frame.
      a_leases_lapse_ms: aLeases ? { first: round(aLeases.first_ms), last: round(aLeases.last_ms) } : null,
      lapse_to_first_continued_frame: { p50: lapseToContinued.p50, p99: lapseToContinued.p99 },
    },
    resume_p99_ms: since(
      (c) => c.resume?.firstFrameAt ?? c.resume?.resumedAt,
      (c) => c.resume?.sentAt ?? 0,
    ).p99,
    resume_to_closing_frames_p99_ms: since(
      (c) => c.resume?.doneAt,
      (c) => c.resume?.sentAt ?? 0,
    ).p99,
    event_loop_lag_p99_ms: {
      a_until_kill: round(aUntilKill.lag_p99_ms),
      b_until_kill: round(bUntilKill.lag_p99_ms),
      b_after_kill: round(bAfterKill.lag_p99_ms),
    },
    checks,
  },
  details: {
    at_kill: atKill,
    resume_ms: {
      connect: ms(resumed.map((c) => c.resume?.connectMs ?? Number.NaN)),
      to_first_replayed_frame: since(
        (c) => c.resume?.firstFrameAt,
        (c) => c.resume?.sentAt ?? 0,
      ),
      to_chat_resumed: since(
        (c) => c.resume?.resumedAt,
        (c) => c.resume?.sentAt ?? 0,
      ),
      to_closing_frames: since(
        (c) => c.resume?.doneAt,
        (c) => c.resume?.sentAt ?? 0,
      ),
      kill_to_closing_frames: since(
        (c) => c.resume?.doneAt,
        () => killedAt,
      ),
      kill_to_first_continued_frame: killToContinued,
      errors: resumeErrors.slice(0, 10),
      error_count: resumeErrors.length,
    },
    problems: verdicts
      .filter(
        ({ verdict: v, client: c }) =>
          v.lost + v.gaps + v.duplicates > 0 ||
          v.dones !== 1 ||
          !v.doneLast ||
          v.status !== (c.first.instance === "b" || !c.resume ? "complete" : KILLED_TURN_ENDS),
      )
      .slice(0, 10)
      .map(({ client, verdict }) => describeProblem(client, verdict)),
    replayed_frames_differing_in_bytes_but_equal_parsed: sum((v) => v.byteMismatchesEqualParsed),
    seq_gaps: sum((v) => v.gaps),
    frames_missing_from_replay: sum((v) => v.lost),
    stored_rows: rowStatus,
    leases: leaseSummary(leaseSampler.samples, killedAt - t0),
    survivor_turn_ms: ms(
      clients
        .filter((c) => c.first.instance === "b" && c.doneAt !== undefined)
        .map((c) => (c.doneAt as number) - c.sentAt),
    ),
    timing_ms: {
      kill: Math.round(killedAt - t0),
      all_done: Math.round(allDoneAt - t0),
      ideal_turn: idealTurnMs(),
      ramp: RAMP_MS,
    },
    event_loop_lag_ms: {
      a_until_kill: lag(aUntilKill),
      b_until_kill: lag(bUntilKill),
      b_after_kill: lag(bAfterKill),
      clients_process: {
        p50: round(Math.max(0, clientLag.percentile(50) / 1e6 - 10)),
        p99: round(Math.max(0, clientLag.percentile(99) / 1e6 - 10)),
        max: round(Math.max(0, clientLag.max / 1e6 - 10)),
      },
    },
    instances: {
      a_at_kill: instanceFigures(aUntilKill),
      b_at_kill: instanceFigures(bUntilKill),
      b_at_end: instanceFigures(bAfterKill),
    },
    logs: { a: a.log, b: b.log },
  },
  config: {
    sockets: SOCKETS,
    instances: 2,
    db: DB,
    lease_ms: LEASE_MS,
    recovery: RECOVERY,
    kill_at_share_of_a_chunks: KILL_AT,
    resume_from: RESUME_FROM,
    reconnect_jitter_ms: RECONNECT_JITTER_MS,
    ramp_ms: RAMP_MS,
    warmup_turns_per_instance: WARMUP,
    turn: shape,
    text_chunks_per_turn: chunksPerTurn,
    log_level: LOG_LEVEL,
    auth: "token, one user per socket",
    method:
      "real processes: redis-server, the database (a fresh Postgres cluster, or one SQLite file both instances open), two `node apps/server/src/main.ts` instances (REDIS_URL, INSTANCE_ID a/b, TURN_LEASE_MS, TURN_RECOVERY, AGENTWIRE_SCRIPTED_PROVIDER=bench/src/_scale-provider.ts), this process with every ws client. Sockets alternate a/b; one chat_message each, ramped; when a's clients have received kill_at of their text chunks, both /metrics are scraped and a gets SIGKILL; each of a's clients without its done reconnects to b at once and sends resume_chat (last_seq 0 with resume_from zero); once a's leases lapse, b continues a's turns from their last checkpoints (recovery continue) or ends them interrupted (recovery interrupt). Event-loop lag: prom-client's monitorEventLoopDelay histogram (20 ms resolution, subtracted), reset by each scrape, so each figure covers one window.",
    frames_lost:
      "frames received on a's socket missing from (or different in) the replay on b, plus seq gaps in any client's final sequence (first socket's frames, then b's replayed and live ones)",
    resume_p99_ms:
      "resume_chat sent → first replayed frame (or chat_resumed when nothing was replayed), over a's clients that resumed; resume_to_closing_frames: → the turn's done chunk, bounded below by the lease (the survivor takes a dead instance's turn over once its lease lapsed)",
    kill_to_first_continued_frame_ms:
      "SIGKILL of a → the first frame on b's socket with a seq past chat_resumed.last_seq (appended by b after the resume: the continuation, or the closing frames with --recovery interrupt), over a's clients that resumed; a_leases_lapse_ms: when the first and the last of a's leases lapse, read with PTTL right after a exited; lapse_to_first_continued_frame: from the first lapse, the survivor's part",
    killed_turns:
      "a's turns whose clients resumed on b, by how they ended (status of the last assistant message frame); continued: the client saw agent_state resumed",
    turns:
      "by the instance the turn started on (a's include those b continued); ended = the status of the last assistant message frame the client saw; stored_rows checks the same status through GET /api/threads/:id/messages on b",
  },
  machine: {
    ...machineInfo(start),
    loadavg_at_start: avg(load.start),
    loadavg_at_kill: avg(load.kill ?? []),
    loadavg_at_end: avg(load.end ?? []),
  },
  date: new Date().toISOString(),
};

await cleanup();
const name = process.argv.includes("--out")
  ? String(process.argv[process.argv.indexOf("--out") + 1])
  : "scale";
writeFileSync(new URL(`../results/${name}.json`, import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report.result, null, 2));
const failed = Object.entries(checks).filter(([, ok]) => !ok);
if (failed.length > 0) console.error(`scale: checks failed: ${failed.map(([k]) => k).join(", ")}`);
process.exit(failed.length > 0 ? 1 : 0);

// --- helpers -----------------------------------------------------------------------------------------

async function cleanup(): Promise<void> {
  for (const c of clients) {
    c.first?.ws.terminate();
    c.second?.ws.terminate();
  }
  await Promise.all(instances.map((i) => stopInstance(i)));
  await backends.stop();
}

/** Runs one whole turn per token on `instance` and waits for every done (warm-up). */
async function runTurns(instance: Instance, tokens: string[]): Promise<void> {
  let left = tokens.length;
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  const warm = tokens.map(
    (token, i) =>
      new ScaleClient(-1 - i, token, {
        onTextChunk() {},
        onDone() {
          left -= 1;
          if (left === 0) done();
        },
      }),
  );
  await Promise.all(warm.map((c) => c.connect(wsUrl(instance), instance.name)));
  for (const c of warm) c.startTurn();
  await all;
  for (const c of warm) c.first.ws.terminate();
}

/** The turn's length with no load: three parallel subtasks, then the final answer. */
function idealTurnMs(): number {
  return (
    shape.firstTokenMs * 2 +
    (shape.subtaskChunks - 1) * shape.chunkMs +
    shape.firstTokenMs +
    (shape.finalChunks - 1) * shape.chunkMs
  );
}

/**
 * A live instance renews each lease every third of it, so the least TTL left should stay near two
 * thirds of the lease; near 0 means the heartbeat fell behind and live turns may be taken for dead.
 */
function leaseSummary(samples: LeaseSample[], killMs: number) {
  const before = samples.filter((s) => s.at_ms < killMs && s.leases > 0);
  const least = before.length > 0 ? Math.min(...before.map((s) => s.least_ttl_ms)) : Number.NaN;
  return {
    samples_before_kill: before.length,
    least_ttl_left_before_kill_ms: least,
    samples_under_a_third_of_the_lease: before.filter((s) => s.least_ttl_ms < LEASE_MS / 3).length,
    max_leases: Math.max(0, ...samples.map((s) => s.leases)),
    // Every 4th sample: how the least TTL moved during the run.
    timeline: samples.filter((_, i) => i % 4 === 0).map((s) => [s.at_ms, s.leases, s.least_ttl_ms]),
  };
}

function instanceFigures(m: InstanceMetrics) {
  return {
    cpu_s: round(m.cpu_s),
    rss_mb: round(m.rss_mb, 1),
    open_sockets: m.open_sockets,
    turns_ended_counter: m.turns_ended,
  };
}

/**
 * Each turn's stored status, read through the survivor's API: the last assistant row must say what
 * the frames said (complete, or interrupted for a dead instance's turn with --recovery interrupt).
 */
async function storedStatuses(instance: Instance) {
  const result = { checked: 0, disagree: 0, failed: 0, examples: [] as string[] };
  const queue = verdicts
    .filter((v) => v.client.threadId !== undefined)
    .map((v) => ({ client: v.client, status: v.verdict.status }));
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { client, status } = next;
      try {
        const response = await fetch(`${instance.url}/api/threads/${client.threadId}/messages`, {
          headers: { authorization: `Bearer ${client.token}` },
        });
        const body = (await response.json()) as { messages: { role: string; status?: string }[] };
        const stored = body.messages.findLast((m) => m.role === "assistant")?.status ?? "none";
        result.checked += 1;
        if (stored !== status) {
          result.disagree += 1;
          if (result.examples.length < 5)
            result.examples.push(`${client.threadId}: frames ${status}, row ${stored}`);
        }
      } catch (err) {
        result.failed += 1;
        if (result.examples.length < 5) result.examples.push(`${client.threadId}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return result;
}
