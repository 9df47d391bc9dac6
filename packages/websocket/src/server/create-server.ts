import { randomUUID } from "node:crypto";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { type AuthSettings, LOCAL_USER_ID } from "../auth/resolve-user.js";
import type { AgentwireDatabase } from "../db/open-database.js";
import { createRepositories, type Repositories } from "../db/repositories.js";
import type { CommandHandlers } from "../ws/command-router.js";
import { defaultCommandHandlers } from "../ws/handlers/default-handlers.js";
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
  /** Replaces entries of the command table (e.g. the real `chat_message`). */
  handlers?: Partial<CommandHandlers>;
  /** Defaults to repositories over `database`. */
  repos?: Repositories;
}

export interface AgentwireServer {
  app: FastifyInstance;
  repos: Repositories;
  /** Open WebSocket connections (for metrics). */
  openSockets(): number;
}

/** Builds the Fastify app (not listening): users for the auth mode ensured, the agentwire plugin registered. */
export async function createServer(options: CreateServerOptions): Promise<AgentwireServer> {
  const repos = options.repos ?? createRepositories(options.database.db);
  if (options.auth.mode === "none") repos.users.ensure(LOCAL_USER_ID);
  else for (const entry of options.auth.staticTokens) repos.users.ensure(entry.userId);

  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: () => randomUUID(),
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
  });
  await app.register(agentwirePlugin, {
    database: options.database,
    repos,
    settings: {
      auth: options.auth,
      allowedOrigins: options.allowedOrigins ?? [],
      limits: resolveServerLimits(options.limits),
    },
    services: options.services ?? ({} as AgentwireServices),
    handlers: { ...defaultCommandHandlers, ...options.handlers } as CommandHandlers,
  });
  return { app, repos, openSockets: () => app.websocketServer?.clients.size ?? 0 };
}
