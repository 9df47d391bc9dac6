import { CloseCode } from "../ws/close-codes.js";
import type { ConnectionRegistry } from "../ws/connection-registry.js";

/**
 * Closes every socket with 1012 (queued behind frames already buffered, so writes finish), waits for the
 * close handshakes up to `timeoutMs`, then terminates whatever is left.
 */
export async function closeAllConnections(registry: ConnectionRegistry, timeoutMs: number): Promise<void> {
  const connections = registry.all();
  if (connections.length === 0) return;
  for (const connection of connections) connection.close(CloseCode.serviceRestart, "server shutting down");
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([Promise.all(connections.map((c) => c.closed)), timedOut]);
  clearTimeout(timer);
  for (const connection of registry.all()) connection.terminate();
}
