import type { McpServersStatus } from "@agentwire-chat/protocol";
import type { FastifyInstance } from "fastify";
import { extractToken } from "../auth/extract-token.js";
import type { MetricsAccess } from "./metrics-access.js";

export interface McpStatusRouteOptions {
  /** Every configured MCP server's state (`McpManager.status`); empty without MCP. */
  status: () => McpServersStatus["servers"];
  /** Whether a bearer token is an operator's; unset: anyone who reaches the app (AUTH_MODE=none). */
  access?: MetricsAccess;
}

/**
 * `GET /api/mcp`, for operators: each MCP server's state, tool count and failure reason. A request
 * without a token is 401; one whose token is not an operator's (a user's API token) is 403.
 */
export async function mcpStatusRoute(app: FastifyInstance, opts: McpStatusRouteOptions): Promise<void> {
  const { access } = opts;
  app.get("/api/mcp", async (request, reply) => {
    if (access) {
      // The header only, as for /metrics: a token in the URL ends up in proxy logs.
      const presented = extractToken({ headers: { authorization: request.headers.authorization } });
      if (presented === undefined) {
        return reply
          .code(401)
          .header("www-authenticate", 'Bearer realm="agentwire"')
          .send({ code: "unauthorized", message: "the operator token (METRICS_TOKEN) is required" });
      }
      if (!(await access(presented.token))) {
        request.log.info("MCP status refused: not an operator token");
        return reply
          .code(403)
          .send({ code: "forbidden", message: "operators only: present METRICS_TOKEN as the bearer token" });
      }
    }
    const body: McpServersStatus = { servers: opts.status() };
    return reply.send(body);
  });
}
