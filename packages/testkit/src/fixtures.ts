import { fileURLToPath } from "node:url";

// Paths, not modules: these run in processes of their own (an MCP server, a server's provider).
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** An MCP server over stdio with a few tools (echo, record, ...): what tool and MCP tests connect to. */
export const mcpTestServer = fixture("mcp-test-server.mjs");
/** An MCP server whose tools each record their effect, one server per permission class. */
export const mcpEffectServer = fixture("mcp-effect-server.mjs");
/** An MCP server that never finishes its handshake. */
export const mcpHungServer = fixture("mcp-hung-server.mjs");
/** A scripted provider module a server process loads through AGENTWIRE_SCRIPTED_PROVIDER. */
export const scriptedProviderModule = fixture("scripted-provider.ts");
