import type { LlmCallRecord, LoopEvent } from "@agentwire-chat/agents";
import type { TurnStatus } from "@agentwire-chat/protocol";
import type { PoolStats } from "@agentwire-chat/storage";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { AdmissionObserver, AdmissionRejection } from "../turns/admission-queue.js";
import type { TurnObserver } from "../turns/turn-observer.js";
import { RelayTimes } from "../ws/relay-times.js";

/** Live numbers read at scrape time. */
export type MetricsSources = {
  openSockets: () => number;
  turns: () => { running: number; suspended: number };
  /** The Postgres pool's connections; undefined on SQLite. */
  databasePool?: () => PoolStats | undefined;
  /** The Redis connections' state (@agentwire-chat/cluster's `ClusterStats`); undefined without a cluster. */
  redis?: () => { connections: Record<string, boolean>; followedThreads: number } | undefined;
  /** The admission queue: turns waiting and turns admitted (live); undefined without one. */
  admission?: () => { depth: number; live: number } | undefined;
};

/** The server's Prometheus metrics; also the TurnObserver and AdmissionObserver that feed them. */
export class AgentwireMetrics implements TurnObserver, AdmissionObserver {
  readonly registry = new Registry();
  private readonly turnsEnded: Counter<"status">;
  private readonly providerCalls: Counter<"provider" | "model" | "operation" | "outcome">;
  private readonly tokens: Counter<"provider" | "model" | "operation" | "kind">;
  private readonly cost: Counter<"provider" | "model" | "operation">;
  private readonly providerLatency: Histogram<"provider">;
  private readonly firstToken: Histogram<"provider" | "model">;
  private readonly toolCalls: Counter<"tool">;
  private readonly toolErrors: Counter<"tool">;
  private readonly toolCrashes: Counter<"tool">;
  private readonly budgetBreaches: Counter<"reason">;
  private readonly admissionWaits: Histogram;
  private readonly admissionRejections: Counter<"reason">;
  /** Each frame's time from append to socket write; sockets record into it (createServer's `relayTimes`). */
  readonly relayTimes = new RelayTimes();

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    // Default metrics include nodejs_eventloop_lag_* (from monitorEventLoopDelay), RSS and heap.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
    this.registry.registerMetric(this.relayTimes as unknown as Parameters<Registry["registerMetric"]>[0]);
    new Gauge({
      name: "agentwire_open_sockets",
      help: "Open WebSocket connections",
      registers,
      collect() {
        this.set(sources.openSockets());
      },
    });
    new Gauge({
      name: "agentwire_turns_active",
      help: "Turns running or waiting on the user",
      labelNames: ["state"],
      registers,
      collect() {
        const t = sources.turns();
        this.set({ state: "running" }, t.running);
        this.set({ state: "waiting_on_user" }, t.suspended);
      },
    });
    new Gauge({
      name: "agentwire_db_pool_connections",
      help: "Postgres pool connections: total open, idle, and queries waiting for one",
      labelNames: ["state"],
      registers,
      collect() {
        const pool = sources.databasePool?.();
        if (!pool) return;
        this.set({ state: "total" }, pool.total);
        this.set({ state: "idle" }, pool.idle);
        this.set({ state: "waiting" }, pool.waiting);
      },
    });
    new Gauge({
      name: "agentwire_redis_connected",
      help: "1 when the Redis connection is ready (commands, stream reader, command bus), else 0",
      labelNames: ["connection"],
      registers,
      collect() {
        const redis = sources.redis?.();
        if (!redis) return;
        for (const [connection, ready] of Object.entries(redis.connections))
          this.set({ connection }, ready ? 1 : 0);
      },
    });
    new Gauge({
      name: "agentwire_redis_followed_threads",
      help: "Threads this instance follows on the Redis frame log for sockets whose turn runs elsewhere",
      registers,
      collect() {
        const redis = sources.redis?.();
        if (redis) this.set(redis.followedThreads);
      },
    });
    new Gauge({
      name: "agentwire_admission_queue_depth",
      help: "New turns waiting for admission (stored, not yet started)",
      registers,
      collect() {
        const admission = sources.admission?.();
        if (admission) this.set(admission.depth);
      },
    });
    new Gauge({
      name: "agentwire_live_turns",
      help: "Turns admitted and running (not queued, not waiting on the user), against MAX_LIVE_TURNS",
      registers,
      collect() {
        const admission = sources.admission?.();
        if (admission) this.set(admission.live);
      },
    });
    this.admissionWaits = new Histogram({
      name: "agentwire_admission_wait_seconds",
      help: "How long new turns waited for admission (0 when admitted at once)",
      buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.admissionRejections = new Counter({
      name: "agentwire_admission_rejected_total",
      help: "New turns refused with overloaded: the queue was full in total or for the user",
      labelNames: ["reason"],
      registers,
    });
    this.turnsEnded = new Counter({
      name: "agentwire_turns_ended_total",
      help: "Turns by ending status",
      labelNames: ["status"],
      registers,
    });
    this.providerCalls = new Counter({
      name: "agentwire_provider_calls_total",
      help: "Provider calls at any depth, by what they were for (operation)",
      labelNames: ["provider", "model", "operation", "outcome"],
      registers,
    });
    this.tokens = new Counter({
      name: "agentwire_tokens_total",
      help: "Tokens by provider, model, operation and kind",
      labelNames: ["provider", "model", "operation", "kind"],
      registers,
    });
    this.cost = new Counter({
      name: "agentwire_cost_usd_total",
      help: "Known cost in USD, by provider, model and operation",
      labelNames: ["provider", "model", "operation"],
      registers,
    });
    this.providerLatency = new Histogram({
      name: "agentwire_provider_call_seconds",
      help: "Provider call latency",
      labelNames: ["provider"],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.firstToken = new Histogram({
      name: "agentwire_time_to_first_token_seconds",
      help: "From a provider request to its first text or thinking delta, measured in the server",
      labelNames: ["provider", "model"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
      registers,
    });
    this.toolCalls = new Counter({
      name: "agentwire_tool_calls_total",
      help: "Tool calls by tool",
      labelNames: ["tool"],
      registers,
    });
    this.toolErrors = new Counter({
      name: "agentwire_tool_errors_total",
      help: "Tool calls that ended in an error",
      labelNames: ["tool"],
      registers,
    });
    this.toolCrashes = new Counter({
      name: "agentwire_tool_crashes_total",
      help: "Tool calls where the tool threw (a bug; logged at error with its ref)",
      labelNames: ["tool"],
      registers,
    });
    this.budgetBreaches = new Counter({
      name: "agentwire_budget_breaches_total",
      help: "Turn budgets breached, by reason",
      labelNames: ["reason"],
      registers,
    });
  }

  llmCall(r: LlmCallRecord): void {
    const model = { provider: r.provider, model: modelLabel(r.model) };
    // The operation is one of LlmOperation's eight values: bounded like the other labels.
    const labels = { ...model, operation: r.operation };
    this.providerCalls.inc({ ...labels, outcome: r.error ? "error" : "ok" });
    this.providerLatency.observe({ provider: r.provider }, r.latencyMs / 1000);
    if (r.firstTokenMs !== undefined) this.firstToken.observe(model, r.firstTokenMs / 1000);
    this.tokens.inc({ ...labels, kind: "input" }, r.inputTokens);
    this.tokens.inc({ ...labels, kind: "output" }, r.outputTokens);
    this.tokens.inc({ ...labels, kind: "cache_read" }, r.cacheReadTokens);
    this.tokens.inc({ ...labels, kind: "cache_write" }, r.cacheWriteTokens);
    this.tokens.inc({ ...labels, kind: "reasoning" }, r.reasoningTokens);
    if (r.costKnown) this.cost.inc(labels, r.costUsd);
  }

  event(e: LoopEvent): void {
    if (e.type === "tool_call_update" && e.status === "end") {
      const tool = toolLabel(e.name);
      this.toolCalls.inc({ tool });
      if (e.is_error) this.toolErrors.inc({ tool });
    } else if (e.type === "budget_exceeded") {
      this.budgetBreaches.inc({ reason: e.reason });
    }
  }

  toolCrashed(tool: string): void {
    this.toolCrashes.inc({ tool: toolLabel(tool) });
  }

  turnEnded(status: TurnStatus): void {
    this.turnsEnded.inc({ status });
  }

  admissionWaited(seconds: number): void {
    this.admissionWaits.observe(seconds);
  }

  admissionRejected(reason: AdmissionRejection): void {
    this.admissionRejections.inc({ reason });
  }
}

// Model and tool names come from clients and models: bound them so label cardinality stays bounded.
const safe = /^[\w.:/-]{1,64}$/;
function modelLabel(model: string): string {
  return safe.test(model) ? model : "other";
}
function toolLabel(name: string): string {
  return safe.test(name) ? name : "other";
}
