import type { ApiTokensRepo } from "@agentwire-chat/storage";
import {
  type AgentwireMetrics,
  createUserResolver,
  isLoopbackHost,
  type MetricsAccess,
  metricsRoute,
  metricsTokenAccess,
} from "@agentwire-chat/websocket";
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Config } from "./config.js";

/** Where /metrics ended up: on the main app, or on its own loopback listener (METRICS_PORT). */
export interface MetricsEndpoint {
  /** `http://127.0.0.1:<port>` with METRICS_PORT (the real port when it is 0); else undefined. */
  url: string | undefined;
  /** Closes the loopback listener, if any. */
  close(): Promise<void>;
}

/**
 * Serves /metrics as docs/operations.md's "Metrics" section says: with METRICS_PORT only on a listener of its
 * own at 127.0.0.1 (open, or METRICS_TOKEN if set); otherwise on the main app, where AUTH_MODE=token
 * asks for METRICS_TOKEN or any API token, and AUTH_MODE=none for METRICS_TOKEN only if it is set.
 */
export async function serveMetrics(
  app: FastifyInstance,
  metrics: AgentwireMetrics,
  config: Config,
  apiTokens: ApiTokensRepo,
  logger: Logger,
): Promise<MetricsEndpoint> {
  const { tokenHash, port } = config.metrics;
  if (port === undefined) {
    await app.register(metricsRoute, { metrics, ...mainAccess(config, apiTokens) });
    return { url: undefined, close: async () => {} };
  }
  const listener = Fastify({ loggerInstance: logger.child({ listener: "metrics" }) });
  // Loopback only is no protection against DNS rebinding: a page whose name resolves to 127.0.0.1
  // is same-origin with this port, and its requests carry that name as Host.
  listener.addHook("onRequest", async (request, reply) => {
    if (!isLoopbackHost(request.headers.host ?? "")) {
      request.log.info({ host: request.headers.host?.slice(0, 100) }, "host refused");
      return reply.code(403).send({ code: "forbidden", message: "host not allowed; use 127.0.0.1" });
    }
  });
  await listener.register(metricsRoute, {
    metrics,
    ...(tokenHash !== undefined && { access: metricsTokenAccess({ metricsTokenHash: tokenHash }) }),
  });
  try {
    await listener.listen({ host: "127.0.0.1", port });
  } catch (error) {
    await listener.close();
    throw error;
  }
  const address = listener.server.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  const url = `http://127.0.0.1:${bound}`;
  logger.info({ url: `${url}/metrics` }, "metrics listening");
  return { url, close: () => listener.close() };
}

/** Who may scrape /metrics on the main port. */
function mainAccess(config: Config, apiTokens: ApiTokensRepo): { access?: MetricsAccess } {
  const metricsTokenHash = config.metrics.tokenHash;
  if (config.authMode === "token") {
    const resolveUser = createUserResolver({ mode: "token", staticTokens: config.staticTokens }, apiTokens);
    return { access: metricsTokenAccess({ metricsTokenHash, resolveUser }) };
  }
  // AUTH_MODE=none serves only loopback names (and ALLOWED_HOSTS) to anyone, /metrics included.
  return metricsTokenHash === undefined ? {} : { access: metricsTokenAccess({ metricsTokenHash }) };
}
