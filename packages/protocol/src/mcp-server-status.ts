import { z } from "zod";

/**
 * Where an operator-configured MCP server stands: `idle` (no policy has named it, so it was never
 * started), `connecting` (a handshake is under way), `connected` (its tools are offered to turns),
 * `failed` (the last handshake or the connection failed; retried with backoff).
 */
export const McpServerState = z.enum(["idle", "connecting", "connected", "failed"]);
export type McpServerState = z.infer<typeof McpServerState>;

/** One MCP server as `GET /api/mcp` lists it (operators only). */
export const McpServerStatus = z.object({
  name: z.string(),
  state: McpServerState,
  /** Tools offered to turns: the server's usable tools while connected, else 0. */
  tools: z.number().int().nonnegative(),
  /** Why it failed (no secrets: configured header and env values are redacted); only when failed. */
  reason: z.string().optional(),
  /** Handshakes tried since start-up. */
  attempts: z.number().int().nonnegative(),
  /** When it entered this state (ISO 8601). */
  since: z.string(),
  /** When the next handshake starts (ISO 8601); only when failed. */
  next_retry_at: z.string().optional(),
});
export type McpServerStatus = z.infer<typeof McpServerStatus>;

/** `GET /api/mcp`: every configured MCP server, by name. */
export const McpServersStatus = z.object({ servers: z.array(McpServerStatus) });
export type McpServersStatus = z.infer<typeof McpServersStatus>;
