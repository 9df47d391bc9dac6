import { AgentwireError, findTooDeep, MAX_JSON_DEPTH } from "@agentwire-chat/protocol";
import type { FrameLog, Repositories } from "@agentwire-chat/storage";
import websocket from "@fastify/websocket";
import type { FastifyError, FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { WebSocket } from "ws";
import { selectSubprotocol } from "../auth/extract-token.js";
import { hostAllowlist } from "../auth/host-allowlist.js";
import { createUserResolver } from "../auth/resolve-user.js";
import type { AgentwireServices } from "../commands/agentwire-services.js";
import { agUiRoute } from "../edges/ag-ui/ag-ui-route.js";
import { aiSdkRoute } from "../edges/ai-sdk/ai-sdk-route.js";
import { assetsRoutes } from "../http/assets-routes.js";
import { authenticate } from "../http/authenticate.js";
import { branchesRoutes } from "../http/branches-routes.js";
import { guardRequests } from "../http/guard-requests.js";
import { healthRoutes, type ReadinessChecks } from "../http/health-routes.js";
import { memoryRoutes } from "../http/memory-routes.js";
import { plansRoutes } from "../http/plans-routes.js";
import { providersRoutes } from "../http/providers-routes.js";
import { refuseNulParams } from "../http/refuse-nul-params.js";
import { scratchpadRoutes } from "../http/scratchpad-routes.js";
import { threadsRoutes } from "../http/threads-routes.js";
import { usageRoutes } from "../http/usage-routes.js";
import { workflowsRoutes } from "../http/workflows-routes.js";
import { type CommandHandlers, CommandRouter } from "../ws/command-router.js";
import { type ConnectionQuota, LocalConnectionQuota } from "../ws/connection-quota.js";
import { ConnectionRegistry } from "../ws/connection-registry.js";
import type { EdgeServer } from "../ws/edge-connection.js";
import type { RelayTimes } from "../ws/relay-times.js";
import type { ServerSettings } from "../ws/server-settings.js";
import { wsRoute } from "../ws/ws-route.js";
import { closeAllConnections } from "./close-all-connections.js";

export interface AgentwirePluginOptions {
  /** What `/ready` checks, by dependency name. */
  readiness: ReadinessChecks;
  repos: Repositories;
  settings: ServerSettings;
  services: AgentwireServices;
  handlers: CommandHandlers;
  frames: FrameLog;
  relayTimes?: RelayTimes;
  /** Counts each user's sockets against maxConnectionsPerUser; defaults to this process's own count. */
  connectionQuota?: ConnectionQuota;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every open /ws connection, by user. */
    agentwireConnections: ConnectionRegistry;
  }
}

/** /ws, /ws/ai-sdk, /api and health routes as one Fastify plugin; `preClose` closes every client with 1012. */
async function agentwirePlugin(app: FastifyInstance, opts: AgentwirePluginOptions) {
  for (const key of ["readiness", "repos", "settings", "services", "handlers", "frames"] as const) {
    if (opts[key] == null) throw new Error(`agentwire plugin: option ${key} is required`);
  }
  const { settings } = opts;
  const registry = new ConnectionRegistry();
  const router = new CommandRouter(opts.handlers);
  const resolveUser = createUserResolver(settings.auth, opts.repos.apiTokens);
  const hostAllowed = hostAllowlist(settings.allowedHosts);
  let shuttingDown = false;
  app.decorate("agentwireConnections", registry);

  await app.register(websocket, {
    options: {
      maxPayload: settings.limits.maxPayloadBytes,
      perMessageDeflate: false,
      handleProtocols: (offered: Set<string>) => selectSubprotocol(offered),
    },
    // ws closes the socket itself (1009 for an oversized frame, 1002 for a protocol error); the
    // plugin's default handler would terminate it before that close frame is written.
    errorHandler: (error: Error & { code?: string }, socket: WebSocket, request) => {
      request.log.info({ err: error, code: error.code }, "websocket error");
      if (socket.readyState !== socket.CLOSING && socket.readyState !== socket.CLOSED) socket.terminate();
    },
    preClose: async () => {
      shuttingDown = true;
      clearInterval(heartbeat);
      await closeAllConnections(registry, settings.limits.closeTimeoutMs);
    },
  });

  // After the websocket plugin's own hook (which marks upgrades), before every route's.
  app.addHook(
    "onRequest",
    guardRequests({
      hostAllowed,
      enforceHost: settings.auth.mode === "none" || settings.allowedHosts.length > 0,
    }),
  );

  // HTTP bodies are client JSON too: the same depth limit as frames.
  app.addHook("preValidation", async (request, reply) => {
    const tooDeep = findTooDeep(request.body, "body");
    if (tooDeep !== undefined) {
      return reply
        .code(400)
        .send({ code: "bad_request", message: `${tooDeep}: nested deeper than ${MAX_JSON_DEPTH} levels` });
    }
  });

  const heartbeat = setInterval(() => {
    for (const connection of registry.all()) connection.heartbeat();
  }, settings.limits.heartbeatIntervalMs);
  heartbeat.unref();
  app.addHook("onClose", async () => clearInterval(heartbeat));
  // Before the caller closes the database: running turns still running past the drain are handed
  // over to another instance when one can continue them, else store their partial answers as
  // interrupted; then the log commits what they appended.
  app.addHook("onClose", async () => {
    const chat = opts.services.chat;
    await chat?.turns.drain(settings.limits.shutdownDrainMs);
    if (chat?.handOverOnShutdown) await chat.turns.handOver(5000);
    await chat?.turns.shutdown(5000);
    // An asynchronous log (Postgres, Redis) must have written it all before its connections close.
    await opts.frames.flush();
    opts.frames.close();
  });

  app.setErrorHandler((error: FastifyError | AgentwireError, request, reply) => {
    if (error instanceof AgentwireError) {
      return reply.code(error.httpStatus).send({ code: error.code, message: error.message });
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    return reply.code(status).send({
      code: status >= 500 ? "internal" : "bad_request",
      message: status >= 500 ? "internal error" : error.message,
    });
  });

  // What every edge's connections are served with, /ws's included.
  const edges: EdgeServer = {
    settings,
    repos: opts.repos,
    frames: opts.frames,
    registry,
    router,
    relayTimes: opts.relayTimes,
  };
  await app.register(healthRoutes, { checks: opts.readiness });
  await app.register(async (api) => {
    api.addHook("onRequest", authenticate(resolveUser));
    api.addHook("preHandler", refuseNulParams);
    const threadStates = opts.services.chat?.threadStates;
    await api.register(threadsRoutes, {
      repos: opts.repos,
      progressOf: threadStates && ((userId, threadId) => threadStates.progressOf(userId, threadId)),
    });
    await api.register(scratchpadRoutes, {
      repos: opts.repos,
      frames: opts.frames,
      turns: opts.services.chat?.turns,
      coordination: opts.services.chat?.coordination,
    });
    await api.register(branchesRoutes, { repos: opts.repos });
    await api.register(plansRoutes, { repos: opts.repos });
    await api.register(usageRoutes, { repos: opts.repos });
    await api.register(memoryRoutes, { repos: opts.repos });
    const { chat, workflows, media } = opts.services;
    if (chat) await api.register(providersRoutes, { providers: chat.providers, defaults: chat.defaults });
    if (chat) await api.register(agUiRoute, { server: edges });
    if (workflows)
      await api.register(workflowsRoutes, {
        repos: opts.repos,
        registry: workflows.registry,
        ...(chat && { updates: chat.openWorkflows }),
      });
    if (media) await api.register(assetsRoutes, { repos: opts.repos });
  });
  const sockets = {
    ...edges,
    quota: opts.connectionQuota ?? new LocalConnectionQuota(),
    resolveUser,
    hostAllowed,
    isShuttingDown: () => shuttingDown,
  };
  await app.register(wsRoute, sockets);
  await app.register(aiSdkRoute, sockets);
}

export default fp(agentwirePlugin, { fastify: "5.x", name: "agentwire" });
