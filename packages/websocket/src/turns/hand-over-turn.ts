import { HANDOVER } from "@agentwire-chat/agents";
import type { ActiveTurn } from "./active-turn.js";
import { settleWrites } from "./end-turn.js";
import type { TurnSegment } from "./turn-segment.js";

/** True once the turn was aborted to be handed over (and its route can continue from a checkpoint). */
export function handingOver(turn: ActiveTurn): boolean {
  return turn.abort.signal.aborted && turn.abort.signal.reason === HANDOVER && turn.continuable;
}

/**
 * Leaves a turn its driver stopped for a handover to another instance, as a crash would leave it but
 * cleanly: the writes it queued settle, its frames and latest checkpoint are committed (one group
 * commit holds both), its row stays `running`, and only then is its lease given up, so the instance
 * that takes it over reads that checkpoint. Nothing ends the turn here: no final message, no `done`.
 */
export async function handOverTurn(run: TurnSegment): Promise<void> {
  const { turn } = run;
  try {
    await settleWrites(run);
  } catch (error) {
    // A root row the crash-continuation will not miss: it rebuilds the turn from the frames and the checkpoint.
    run.logger.warn({ err: error }, "a write of the handed-over turn failed");
  }
  turn.handedOver = true;
  turn.log.release(turn.threadId);
  // This process's own watchers (not sockets: those closed with 1012) follow whoever appends next.
  turn.log.handOff(turn.threadId);
  run.registry.finish(turn);
  try {
    await turn.log.flush();
    const { coordination } = run;
    if (coordination.handOver) await coordination.handOver(turn.threadId, turn.turnId);
    else await coordination.release(turn.threadId, turn.turnId);
  } catch (error) {
    run.logger.warn({ err: error }, "could not hand the turn over; its lease lapses by itself");
  }
  run.observer?.turnHandedOver?.();
  run.logger.info("turn handed over to another instance");
}
