import { randomUUID } from "node:crypto";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { type AuthSettings, LOCAL_USER_ID } from "../auth/resolve-user.js";
import { commandTable } from "../commands/command-table.js";
import type { AgentwireDatabase } from "../db/open-database.js";
import type { Repositories } from "../db/repositories.js";
import { createSqliteRepositories } from "../db/sqlite/create-sqlite-repositories.js";
import type { FrameLog } from "../turns/frame-log.js";
import { SqliteFrameLog } from "../turns/sqlite-frame-log.js";
import type { CommandHandlers } from "../ws/command-router.js";
import agentwirePlugin from "./agentwire-plugin.js";
import type { AgentwireServices } from "./agentwire-services.js";
import { resolveServerLimits, type ServerLimitsInput } from "./server-limits.js";

export interface CreateServerOptions {
  /** An open, migrated database; the caller owns it and closes it after the server. */
  database: AgentwireDatabase;
  /** A pino logger, e.g. from createLogger; each request and connection gets a child with its id. */
  logger: FastifyBaseLogger;
  auth: AuthSettings;
  allowedOrigins?: readonly string[];
  /** Production defaults for anything left out. */
  limits?: ServerLimitsInput;
  /** Services for handlers (provider registry, turn registry, ...), see AgentwireServices. */
  services?: AgentwireServices;
  /** Replaces entries of the command table built from `services`. */
  handlers?: CommandHandlers;
  /** The frame log; defaults to the local one over `database` (memory + SQLite group commits). */
  frameLog?: FrameLog;
  /** Defaults to repositories over `database`. */
  repos?: Repositories;
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
  const repos = options.repos ?? createSqliteRepositories(options.database.db);
  if (options.auth.mode === "none") await repos.users.ensure(LOCAL_USER_ID);
  else for (const entry of options.auth.staticTokens) await repos.users.ensure(entry.userId);

  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: () => randomUUID(),
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
  });
  const services = options.services ?? ({} as AgentwireServices);
  const frames =
    options.frameLog ??
    new SqliteFrameLog(options.database.sqlite, {
      onError: (err, threadId) =>
        options.logger.error({ err, thread_id: threadId }, "frames could not be logged; not sent"),
    });
  await app.register(agentwirePlugin, {
    database: options.database,
    repos,
    settings: {
      auth: options.auth,
      allowedOrigins: options.allowedOrigins ?? [],
      limits: resolveServerLimits(options.limits),
    },
    services,
    handlers: { ...commandTable(services), ...options.handlers },
    frames,
  });
  return { app, repos, frames, openSockets: () => app.websocketServer?.clients.size ?? 0 };
}
