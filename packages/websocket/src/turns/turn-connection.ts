import type { FrameLog, FrameSubscriber, Repositories } from "@agentwire-chat/storage";
import type { FastifyBaseLogger } from "fastify";

/**
 * The connection that starts or watches a turn, as the turn lifecycle sees it: the socket's
 * `ConnectionContext` is one, and it stays in `ws/` so that the lifecycle does not depend on it.
 */
export interface TurnConnection {
  /** The authenticated user; every repository call must be scoped by it. */
  readonly userId: string;
  /** Carries connection_id and user_id. */
  readonly logger: FastifyBaseLogger;
  readonly repos: Repositories;
  /** The frame log every turn appends to and `resume_chat` replays from. */
  readonly frames: FrameLog;
  /** This socket as a subscriber of threads' frames. */
  readonly subscriber: FrameSubscriber;
}
