import type { FastifyInstance } from "fastify";

/** Readiness of each dependency by name (`database`, `redis`): true when it answers and is usable. */
export type ReadinessChecks = Record<string, () => Promise<boolean>>;

/** How long `/ready` waits on one dependency before counting it as failing. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * `GET /health` (the process answers) and `GET /ready`: 200 only when every dependency is ready, with
 * each one's state, so a load balancer takes an instance out and an operator sees which part failed.
 */
export async function healthRoutes(app: FastifyInstance, opts: { checks: ReadinessChecks }) {
  app.get("/health", async () => ({ status: "ok" }));
  app.get("/ready", async (request, reply) => {
    const entries = await Promise.all(
      Object.entries(opts.checks).map(async ([name, check]) => {
        try {
          return [name, (await withTimeout(check(), CHECK_TIMEOUT_MS)) ? "ok" : "failing"] as const;
        } catch (err) {
          request.log.warn({ err, dependency: name }, "readiness check failed");
          return [name, "failing"] as const;
        }
      }),
    );
    const ready = entries.every(([, state]) => state === "ok");
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? "ready" : "not_ready", checks: Object.fromEntries(entries) });
  });
}

function withTimeout(check: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
}
