import { dirname, join } from "node:path";

/** Where the approved MCP tool-definition hashes live: beside the database, read by server and CLI alike. */
export function mcpPinsPath(env: Record<string, string | undefined>, databasePath: string): string {
  return env.MCP_PINS_PATH || join(dirname(databasePath), "mcp-pins.json");
}
