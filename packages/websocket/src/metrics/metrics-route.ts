import type { FastifyInstance } from "fastify";
import { extractToken } from "../auth/extract-token.js";
import type { AgentwireMetrics } from "./agentwire-metrics.js";
import type { MetricsAccess } from "./metrics-access.js";

export interface MetricsRouteOptions {
  metrics: AgentwireMetrics;
  /** Who may scrape; unset, anyone who reaches the listener (a loopback-only one, or AUTH_MODE=none). */
  access?: MetricsAccess;
}

/** `GET /metrics` in the Prometheus text format, behind `access` when given. */
export async function metricsRoute(app: FastifyInstance, opts: MetricsRouteOptions): Promise<void> {
  const { access } = opts;
  app.get("/metrics", async (request, reply) => {
    if (access) {
      // The header only: a token in the URL (`?api_key=`) would end up in scrape configs and proxy logs.
      const presented = extractToken({ headers: { authorization: request.headers.authorization } });
      if (!(await access(presented?.token))) {
        request.log.info({ presented: presented !== undefined }, "metrics scrape refused");
        return reply
          .code(401)
          .header("www-authenticate", 'Bearer realm="agentwire"')
          .send({ code: "unauthorized", message: "a valid metrics or API token is required" });
      }
    }
    const body = await opts.metrics.registry.metrics();
    return reply.header("content-type", opts.metrics.registry.contentType).send(body);
  });
}
