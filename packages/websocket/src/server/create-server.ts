import { randomUUID } from "node:crypto";
import type { FrameLog, FrameLogMemory, Repositories, Storage } from "@agentwire-chat/storage";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { type AuthSettings, LOCAL_USER_ID } from "../auth/resolve-user.js";
import type { AgentwireServices } from "../commands/agentwire-services.js";
import { commandTable } from "../commands/command-table.js";
import type { ReadinessChecks } from "../http/health-routes.js";
import { QuietRequestLogs } from "../logging/quiet-request-logs.js";
import type { CommandHandlers } from "../ws/command-router.js";
import type { ConnectionQuota } from "../ws/connection-quota.js";
import { limitTurnStarts } from "../ws/limit-turn-starts.js";
import type { RelayTimes } from "../ws/relay-times.js";
import { resolveServerLimits, type ServerLimitsInput } from "../ws/server-limits.js";
import { LocalUserRateLimit, type UserRateLimit } from "../ws/user-rate-limit.js";
import agentwirePlugin from "./agentwire-plugin.js";

export interface CreateServerOptions {
  /** An open, migrated database (SQLite or Postgres); the caller owns it and closes it after the server. */
  storage: Storage;
  /** A pino logger, e.g. from createLogger; each request and connection gets a child with its id. */
  logger: FastifyBaseLogger;
  auth: AuthSettings;
  allowedOrigins?: readonly string[];
  /** Host names served besides loopback; see ServerSettings.allowedHosts. */
  allowedHosts?: readonly string[];
  /** Production defaults for anything left out. */
  limits?: ServerLimitsInput;
  /** The process's services (chat, workflows, media, client tools), bound to the handlers and routes that use them. */
  services?: AgentwireServices;
  /** Replaces entries of the command table built from `services`. */
  handlers?: CommandHandlers;
  /** The frame log; defaults to the single-instance one stored in `storage`. */
  frameLog?: FrameLog;
  /** How much the default frame log keeps in memory (FRAME_LOG_MEMORY_BYTES); ignored with `frameLog`. */
  frameLogMemory?: FrameLogMemory;
  /** More dependencies `/ready` reports beside the database (e.g. redis). */
  readiness?: ReadinessChecks;
  /** Counts each user's sockets against the cap; defaults to this process's count (a cluster's counts in Redis). */
  connectionQuota?: ConnectionQuota;
  /** Counts each user's turn starts (limits.userTurnsPerMinute); defaults to this process's count. */
  userRateLimit?: UserRateLimit;
  /** Where sockets record each frame's time from append to write (the metrics' relay histogram). */
  relayTimes?: RelayTimes;
}

export interface AgentwireServer {
  app: FastifyInstance;
  repos: Repositories;
  /** The frame log of every thread (restart recovery reads it). */
  frames: FrameLog;
  /** Open WebSocket connections (for metrics). */
  openSockets(): number;
}

/** Builds the Fastify app (not listening): users for the auth mode ensured, the agentwire plugin registered. */
export async function createServer(options: CreateServerOptions): Promise<AgentwireServer> {
  const { repos } = options.storage;
  if (options.auth.mode === "none") await repos.users.ensure(LOCAL_USER_ID);
  else for (const entry of options.auth.staticTokens) await repos.users.ensure(entry.userId);

  const limits = resolveServerLimits(options.limits);
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: () => randomUUID(),
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    // Fastify's two info lines per request are noise: one debug line instead.
    logController: new QuietRequestLogs(),
    // A held request (a header or a body dripped byte by byte) is answered 408 and closed.
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node looks for held requests only at this interval (30 s by default): a fraction of the
      // timeout, so one is closed soon after its deadline, not up to 30 s later.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
  });
  const services: AgentwireServices = options.services ?? {};
  const frames = options.frameLog ?? options.storage.createFrameLog(options.logger, options.frameLogMemory);
  const handlers = limitTurnStarts(
    { ...commandTable(services), ...options.handlers },
    options.userRateLimit ?? new LocalUserRateLimit(),
    limits,
  );
  await app.register(agentwirePlugin, {
    readiness: { database: () => options.storage.isReady(), ...options.readiness },
    repos,
    settings: {
      auth: options.auth,
      allowedOrigins: options.allowedOrigins ?? [],
      allowedHosts: options.allowedHosts ?? [],
      limits,
    },
    services,
    handlers,
    frames,
    ...(options.connectionQuota && { connectionQuota: options.connectionQuota }),
    ...(options.relayTimes && { relayTimes: options.relayTimes }),
  });
  return { app, repos, frames, openSockets: () => app.websocketServer?.clients.size ?? 0 };
}
