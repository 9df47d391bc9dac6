import { hashApiToken, hashesEqual } from "../auth/api-token.js";
import type { UserResolver } from "../auth/resolve-user.js";

/** Whether a scrape that presented `token` (as `Authorization: Bearer`, if at all) may read the metrics. */
export type MetricsAccess = (token: string | undefined) => Promise<boolean>;

export interface MetricsTokenOptions {
  /** METRICS_TOKEN, hashed with hashApiToken: the plain token is not kept. */
  metricsTokenHash?: string | undefined;
  /** AUTH_MODE=token: any API token (static or stored) reads the metrics too. */
  resolveUser?: UserResolver | undefined;
}

/** Accepts the metrics token and, given a resolver, any API token; a missing or unknown token is refused. */
export function metricsTokenAccess(options: MetricsTokenOptions): MetricsAccess {
  const { metricsTokenHash, resolveUser } = options;
  return async (token) => {
    if (token === undefined || token.length === 0 || token.length > 512) return false;
    // Hashes of equal length compared in constant time: the timing tells nothing about the token.
    if (metricsTokenHash !== undefined && hashesEqual(metricsTokenHash, hashApiToken(token))) return true;
    return resolveUser !== undefined && (await resolveUser(token)) !== undefined;
  };
}
