import type { FastifyInstance } from "fastify";
import type { AgentwireDatabase } from "../db/open-database.js";

/** `GET /health` (the process answers) and `GET /ready` (database reachable, migrations applied). */
export async function healthRoutes(app: FastifyInstance, opts: { database: AgentwireDatabase }) {
  app.get("/health", async () => ({ status: "ok" }));
  app.get("/ready", async (request, reply) => {
    let ready = false;
    try {
      ready = opts.database.isReady();
    } catch (err) {
      request.log.warn({ err }, "readiness check failed");
    }
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ready" : "not_ready" });
  });
}
