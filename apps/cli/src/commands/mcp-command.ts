import { JsonFilePinStore, loadMcpServersConfig, McpManager } from "@agentwire-chat/agents";
import { mcpPinsPath } from "@agentwire-chat/websocket";
import type { CliIo, ExitCode } from "../cli-io.js";

const USAGE = `usage: agentwire mcp approve NAME
Connects to the MCP server NAME of MCP_CONFIG_PATH, and pins its current tool definitions as approved
(in MCP_PINS_PATH, default mcp-pins.json beside DATABASE_PATH). A server whose tools changed since
their approval is refused by the server until this is run again.`;

/** `agentwire mcp approve NAME`: the operator's (re-)approval of an MCP server's tools. */
export async function runMcpCommand(args: string[], io: CliIo): Promise<ExitCode> {
  const [verb, name, ...rest] = args;
  if (verb !== "approve" || !name || rest.length > 0) {
    io.stderr(`${USAGE}\n`);
    return 2;
  }
  const configPath = io.env.MCP_CONFIG_PATH;
  if (!configPath) {
    io.stderr("agentwire mcp: MCP_CONFIG_PATH is not set\n");
    return 1;
  }
  const config = await loadMcpServersConfig(configPath);
  if (!config.ok) {
    io.stderr(`agentwire mcp: ${config.reason}\n`);
    return 1;
  }
  const pins = new JsonFilePinStore(mcpPinsPath(io.env, io.env.DATABASE_PATH || "./data/agentwire.db"));
  const manager = new McpManager({ config: config.value, pins });
  try {
    const approved = await manager.approve(name);
    if (!approved.ok) {
      io.stderr(`agentwire mcp: ${approved.reason}\n`);
      return 1;
    }
    io.stdout(`approved ${name}: ${approved.value.tools.join(", ")} (${approved.value.hash})\n`);
    return 0;
  } finally {
    await manager.close();
  }
}
