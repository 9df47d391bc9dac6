import type { ServerFrame } from "@agentwire-chat/protocol";
import type { TurnConnection } from "../turns/turn-connection.js";
import type { ConnectionRegistry } from "./connection-registry.js";
import type { ServerSettings } from "./server-settings.js";

/**
 * What a command handler knows of its socket; the services it uses are bound to it by the command
 * table, and it gets no other access to the socket or the server.
 */
export interface ConnectionContext extends TurnConnection {
  readonly connectionId: string;
  readonly settings: ServerSettings;
  /** All open connections, e.g. to send a turn's frames to every socket of the user. */
  readonly connections: ConnectionRegistry;
  /** Aborted when this socket closes (a turn outlives it; a per-socket wait should not). */
  readonly signal: AbortSignal;
  /** Sends a frame on this socket, respecting backpressure; false when it was not sent. */
  send(frame: ServerFrame): boolean;
}
