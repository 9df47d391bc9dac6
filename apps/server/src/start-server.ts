import { RedisThreadStateRelay, RedisWorkflowUpdateRelay, startCluster } from "@agentwire-chat/cluster";
import { openStorage, type Storage, type TurnRow } from "@agentwire-chat/storage";
import {
  type AgentwireServices,
  type CommandHandlers,
  createLogger,
  createServer,
  type RecoveryCause,
  recoverOrEndTurn,
  recoverTurn,
  recoverTurns,
  registerFrameLogMetrics,
  type ServerLimitsInput,
  startAllQueued,
  startQueued,
} from "@agentwire-chat/websocket";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { createServices } from "./create-services.js";
import { securityHeaders } from "./security-headers.js";
import { serveMcpStatus } from "./serve-mcp-status.js";
import { serveMetrics } from "./serve-metrics.js";
import { findWebDist, serveWebApp } from "./web-app.js";

export interface StartServerOptions {
  logger?: Logger;
  /** Defaults to createServices(config): providers, chat turns and metrics. */
  services?: AgentwireServices;
  handlers?: CommandHandlers;
  /** Connection limits; production defaults for anything left out. */
  limits?: ServerLimitsInput;
}

export interface RunningServer {
  app: FastifyInstance;
  /** The database (SQLite file, or Postgres with DATABASE_URL). */
  storage: Storage;
  /** e.g. http://127.0.0.1:8787 (the real port when config.port is 0). */
  url: string;
  /** With METRICS_PORT: the loopback listener serving /metrics, e.g. http://127.0.0.1:9464. */
  metricsUrl: string | undefined;
  /** The built web client's folder served at `/`; undefined when it was not built. */
  webDist: string | undefined;
  /** With TOOL_POLICY_FILE: reads it again (SIGHUP); a bad file is logged and the policy in force stays. */
  reloadToolPolicy: (() => boolean) | undefined;
  /** Stops accepting, closes sockets with 1012, lets turns drain, then closes Redis and the database. Idempotent. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Opens and migrates the database, builds the server and listens; the process entry and tests call this. */
export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const storage = await openStorage({
    databaseUrl: config.postgres?.url,
    databasePath: config.databasePath,
    ...(config.postgres && {
      postgres: {
        poolSize: config.postgres.poolSize,
        ...(config.postgres.statementTimeoutMs > 0 && {
          statementTimeoutMs: config.postgres.statementTimeoutMs,
        }),
        ...(config.postgres.sslMode && { sslMode: config.postgres.sslMode }),
      },
    }),
  });
  let closing: Promise<void> | undefined;
  let closeCluster = async () => {};
  let closeMetrics = async () => {};
  let closeServices = async () => {};
  // What start-up opened, closed in order; the database last, whatever failed before it.
  const teardown = () =>
    closeServices()
      .catch(() => undefined)
      .then(() => closeMetrics().catch(() => undefined))
      .then(() => closeCluster())
      .finally(() => storage.close());
  try {
    if (config.authMode === "none" && !LOOPBACK.has(config.host)) {
      logger.warn(
        { host: config.host },
        "AUTH_MODE=none on a non-loopback address: anyone who can reach it is user local; only loopback names and ALLOWED_HOSTS are served",
      );
    }
    let openSockets = () => 0;
    const { repos } = storage;
    const cluster = config.cluster
      ? await startCluster({
          url: config.cluster.redisUrl,
          logger,
          leaseMs: config.cluster.leaseMs,
          ...(config.cluster.instanceId !== undefined && { instanceId: config.cluster.instanceId }),
          // Checkpoints go to the database once their frames are in Redis: a dead instance's turns continue.
          storeCheckpoints: (checkpoints) => storage.writeCheckpoints(checkpoints),
        })
      : undefined;
    if (cluster) closeCluster = () => cluster.close();
    const built = options.services
      ? {
          services: options.services,
          metrics: undefined,
          mcpStatus: () => [],
          close: async () => {},
          reloadToolPolicy: undefined,
        }
      : await createServices(config, logger, repos, {
          openSockets: () => openSockets(),
          databasePool: () => storage.poolStats(),
          redis: () => cluster?.stats(),
        });
    const {
      app,
      frames,
      openSockets: countSockets,
    } = await createServer({
      storage,
      logger,
      auth:
        config.authMode === "none" ? { mode: "none" } : { mode: "token", staticTokens: config.staticTokens },
      allowedOrigins: config.allowedOrigins,
      allowedHosts: config.allowedHosts,
      limits: {
        shutdownDrainMs: config.shutdownDrainMs,
        maxConnectionsPerUser: config.userLimits.maxConnectionsPerUser,
        ...(config.userLimits.userTurnsPerMinute && {
          userTurnsPerMinute: config.userLimits.userTurnsPerMinute,
        }),
        ...(config.userLimits.userTurnBurst && { userTurnBurst: config.userLimits.userTurnBurst }),
        ...options.limits,
      },
      services: built.services,
      frameLogMemory: { maxMemoryBytes: config.frameLogMemoryBytes },
      ...(cluster && { frameLog: cluster.frames, readiness: { redis: () => cluster.isReady() } }),
      // Per-user caps and rates counted in Redis, across every instance.
      ...(cluster && { connectionQuota: cluster.connectionQuota, userRateLimit: cluster.userRateLimit }),
      ...(options.handlers && { handlers: options.handlers }),
      ...(built.metrics && { relayTimes: built.metrics.relayTimes }),
    });
    openSockets = countSockets;
    if (built.metrics) registerFrameLogMetrics(built.metrics.registry, () => frames.memoryStats?.());
    await securityHeaders(app);
    const metrics =
      built.metrics && (await serveMetrics(app, built.metrics, config, repos.apiTokens, logger));
    if (metrics) closeMetrics = () => metrics.close();
    await serveMcpStatus(app, built.mcpStatus, config);
    // Not an onClose hook: those run last-registered first, so this would run before the plugin's hook
    // that lets turns drain, and the spans and MCP calls of those turns would be cut off.
    closeServices = () => built.close();
    const web = findWebDist();
    if (web) await serveWebApp(app, web);
    else logger.info("web client not built: run `pnpm build` to serve it at /");
    const chat = built.services.chat;
    // TURN_RECOVERY=continue: a turn whose process died continues here (after a restart, or with
    // Redis once the dead instance's lease lapsed); else, or when it cannot, it ends interrupted.
    const { mode, maxRecoveries } = config.turnRecovery;
    const recover =
      chat && mode === "continue"
        ? (row: TurnRow, cause?: RecoveryCause) =>
            recoverTurn(chat, frames, repos, logger, row, maxRecoveries, cause)
        : undefined;
    if (cluster && chat) {
      chat.coordination = cluster.leases;
      // A rolling deploy: past the drain, this instance's running turns continue on another one.
      chat.handOverOnShutdown = mode === "continue";
      // From the first moment of a shutdown on, this instance takes over no turn: what it hands
      // over (and its own nudges) must go to another instance.
      app.addHook("preClose", async () => cluster.stopSweeping());
      const redisUrl = config.cluster?.redisUrl;
      if (redisUrl) {
        // A turn's live state reaches the user's subscribed sockets on every instance.
        const relay = await RedisThreadStateRelay.connect({
          url: redisUrl,
          instanceId: cluster.instanceId,
          onError: (err) => logger.warn({ err }, "could not publish a thread's live state"),
        });
        const closeRest = closeCluster;
        closeCluster = () => relay.close().then(closeRest);
        await chat.threadStates.relayVia(relay);
        // A saved workflow redraws the user's editors on every instance.
        const saves = await RedisWorkflowUpdateRelay.connect({
          url: redisUrl,
          instanceId: cluster.instanceId,
          onError: (err) => logger.warn({ err }, "could not publish a workflow save"),
        });
        const closeBefore = closeCluster;
        closeCluster = () => saves.close().then(closeBefore);
        await chat.openWorkflows.relayVia(saves);
      }
      // Another instance may be running any stored turn: only those whose lease lapsed are taken over.
      const { uiTools } = built.services;
      await cluster.serve({
        turns: chat.turns,
        repos,
        // Continued here, or ended: its user's subscribers see either, here and (through the relay) elsewhere.
        endLostTurn: async (turn, cause) => {
          const outcome = await recoverOrEndTurn(
            cluster.frames,
            repos,
            logger,
            turn,
            chat.threadStates,
            recover,
            cause,
          );
          // Ended here: the thread's next queued message starts here too (a continued turn's end starts it).
          if (outcome === "interrupted")
            await startQueued(chat, { ...turn, repos, frames: cluster.frames, logger });
          return outcome;
        },
        ...(uiTools && { uiTools }),
      });
    } else {
      // Alone on the database: ending every running turn and numbering frames in memory are only
      // right when no other instance runs there (several need REDIS_URL).
      if (!cluster && !(await storage.claimSoleInstance()))
        throw new Error(
          "another agentwire instance runs on this database without REDIS_URL: set REDIS_URL on every instance to run several",
        );
      const { continued, interrupted } = await recoverTurns(
        frames,
        repos,
        logger,
        chat?.threadStates,
        recover,
      );
      // Messages queued behind the turns the old process ended or left start now (after those turns).
      if (chat) await startAllQueued(chat, { repos, frames, logger });
      if (continued > 0) logger.warn({ continued }, "turns left running by the previous process continue");
      if (interrupted > 0)
        logger.warn({ interrupted }, "turns left running by the previous process ended as interrupted");
    }
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === "object" && address !== null ? address.port : config.port;
    const host = config.host.includes(":") ? `[${config.host}]` : config.host;
    return {
      app,
      storage,
      url: `http://${host}:${port}`,
      metricsUrl: metrics?.url,
      webDist: web,
      reloadToolPolicy: built.reloadToolPolicy,
      close: () => {
        closing ??= app.close().then(teardown);
        return closing;
      },
    };
  } catch (error) {
    await teardown().catch(() => undefined);
    throw error;
  }
}
