import type { FastifyBaseLogger } from "fastify";
import type { Repositories } from "../db/repositories.js";
import type { RunningTurn } from "../turns/running-turn.js";

/**
 * Makes the turn record every seq on its thread before the frame is sent. Written before the send,
 * not after: a process killed between the two must not leave a seq a client saw unrecorded. One
 * primary-key UPDATE per frame (WAL, no fsync per commit) is small beside a model's streaming rate.
 */
export function recordSeqs(turn: RunningTurn, repos: Repositories, logger: FastifyBaseLogger): void {
  turn.recordSeq = (seq) => {
    try {
      repos.threads.setLastSeq(turn.userId, turn.threadId, seq);
    } catch (err) {
      // The frame still goes out; ending the turn reports a broken database on its own.
      logger.warn({ err, thread_id: turn.threadId, seq }, "could not record the thread's last seq");
    }
  };
}
