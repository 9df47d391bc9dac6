import type { McpServerStatus } from "@agentwire-chat/protocol";
import { mcpStatusRoute, metricsTokenAccess } from "@agentwire-chat/websocket";
import type { FastifyInstance } from "fastify";
import type { Config } from "./config.js";

/**
 * Serves `GET /api/mcp` on the main app for operators: the holder of METRICS_TOKEN, never a user's
 * API token. With AUTH_MODE=token and no METRICS_TOKEN nobody reads it; with AUTH_MODE=none (loopback
 * names only) anyone who reaches the app does, as for /metrics, unless METRICS_TOKEN is set.
 */
export async function serveMcpStatus(
  app: FastifyInstance,
  status: () => McpServerStatus[],
  config: Config,
): Promise<void> {
  const metricsTokenHash = config.metrics.tokenHash;
  const access =
    metricsTokenHash !== undefined
      ? metricsTokenAccess({ metricsTokenHash })
      : config.authMode === "token"
        ? async () => false
        : undefined;
  await app.register(mcpStatusRoute, { status, ...(access && { access }) });
}
