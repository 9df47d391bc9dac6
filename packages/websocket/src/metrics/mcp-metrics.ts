import { McpServerState, type McpServerStatus } from "@agentwire-chat/protocol";
import { Counter, Gauge, type Registry } from "prom-client";

/**
 * Adds the MCP servers' gauges to a registry, read at scrape time: `agentwire_mcp_server_state` (1 for
 * the state each server is in, 0 for the others), `agentwire_mcp_server_tools` and
 * `agentwire_mcp_handshakes_total`. Labels are the operator's server names, so cardinality is bounded.
 */
export function registerMcpMetrics(registry: Registry, status: () => McpServerStatus[]): void {
  const registers = [registry];
  new Gauge({
    name: "agentwire_mcp_server_state",
    help: "1 for the state each configured MCP server is in (idle, connecting, connected, failed), else 0",
    labelNames: ["server", "state"],
    registers,
    collect() {
      for (const server of status()) {
        for (const state of McpServerState.options) {
          this.set({ server: server.name, state }, server.state === state ? 1 : 0);
        }
      }
    },
  });
  new Gauge({
    name: "agentwire_mcp_server_tools",
    help: "Tools each MCP server offers turns (0 unless connected)",
    labelNames: ["server"],
    registers,
    collect() {
      for (const server of status()) this.set({ server: server.name }, server.tools);
    },
  });
  new Counter({
    name: "agentwire_mcp_handshakes_total",
    help: "Handshakes tried per MCP server since start-up (the first, and each retry after a failure)",
    labelNames: ["server"],
    registers,
    collect() {
      this.reset();
      for (const server of status()) this.inc({ server: server.name }, server.attempts);
    },
  });
}
