import type { FastifyInstance } from "fastify";
import type { AgentwireMetrics } from "./agentwire-metrics.js";

/** `GET /metrics` in the Prometheus text format. */
export async function metricsRoute(app: FastifyInstance, opts: { metrics: AgentwireMetrics }): Promise<void> {
  app.get("/metrics", async (_request, reply) => {
    const body = await opts.metrics.registry.metrics();
    return reply.header("content-type", opts.metrics.registry.contentType).send(body);
  });
}
