import type { ServerFrame } from "@agentwire/protocol";
import type { FastifyBaseLogger } from "fastify";
import type { Repositories } from "../db/repositories.js";
import type { AgentwireServices } from "../server/agentwire-services.js";
import type { ServerSettings } from "../server/server-settings.js";
import type { FrameLog, FrameSubscriber } from "../turns/frame-log.js";
import type { ConnectionRegistry } from "./connection-registry.js";

/** Everything a command handler may use; handlers get no other access to the socket or the server. */
export interface ConnectionContext {
  readonly connectionId: string;
  /** The authenticated user; every repository call must be scoped by it. */
  readonly userId: string;
  /** Carries connection_id and user_id. */
  readonly logger: FastifyBaseLogger;
  readonly repos: Repositories;
  readonly services: AgentwireServices;
  readonly settings: ServerSettings;
  /** The frame log every turn appends to and `resume_chat` replays from. */
  readonly frames: FrameLog;
  /** This socket as a subscriber of threads' frames. */
  readonly subscriber: FrameSubscriber;
  /** All open connections, e.g. to send a turn's frames to every socket of the user. */
  readonly connections: ConnectionRegistry;
  /** Aborted when this socket closes (a turn outlives it; a per-socket wait should not). */
  readonly signal: AbortSignal;
  /** Sends a frame on this socket, respecting backpressure; false when it was not sent. */
  send(frame: ServerFrame): boolean;
}
