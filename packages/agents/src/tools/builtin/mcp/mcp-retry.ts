/** How a failed MCP server is retried: the first wait, doubled per failure in a row, up to the cap. */
export type McpRetry = { initialMs: number; maxMs: number };

/** The defaults: 1 s, doubling, capped at 60 s (an operator's fix or approval is seen within a minute). */
export const DEFAULT_MCP_RETRY: McpRetry = { initialMs: 1_000, maxMs: 60_000 };

/** The wait before the next handshake after `failures` failures in a row (1 for the first). */
export function mcpRetryDelayMs(failures: number, retry: McpRetry): number {
  const doublings = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(retry.maxMs, retry.initialMs * 2 ** doublings);
}
