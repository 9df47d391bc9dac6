import type { UnstampedFrame } from "@agentwire-chat/protocol";
import type { FrameLog, Repositories } from "@agentwire-chat/storage";
import type { TurnCoordination } from "./turn-coordination.js";
import type { TurnRegistry } from "./turn-registry.js";

/** What a frame from outside a turn needs: the log, and the turns of this process (when chat runs). */
export type OutsideTurnDeps = {
  repos: Repositories;
  frames: FrameLog;
  turns?: TurnRegistry | undefined;
  coordination?: TurnCoordination | undefined;
};

/**
 * Appends a frame made outside any turn's run (an HTTP edit) to the thread's log: the sockets following
 * the thread get it once committed and `resume_chat` replays it. It joins the turn active here, in
 * order with its frames; otherwise the thread's latest turn, since the log keeps one turn's frames per
 * thread and a frame under an older turn would prune the newer one's. False when nothing was appended:
 * the thread never had a turn (no socket follows it, nothing to replay) or its turn runs on another
 * instance (only the owner appends to a shared log while its turn runs).
 */
export async function appendOutsideTurn(
  deps: OutsideTurnDeps,
  userId: string,
  threadId: string,
  frame: UnstampedFrame,
): Promise<boolean> {
  const running = deps.turns?.get(threadId);
  if (running?.active) {
    running.emit(frame);
    return true;
  }
  if ((await deps.coordination?.remoteOwner(threadId)) !== undefined) return false;
  await deps.frames.claim(threadId, { turn: false });
  const latest = await deps.repos.turns.latest(userId, threadId);
  // Checked again after the awaits: a turn that started here meanwhile owns the thread's next frames.
  const started = deps.turns?.get(threadId);
  if (started?.active) {
    started.emit(frame);
    return true;
  }
  const turnId = latest?.id ?? started?.turnId;
  if (turnId === undefined) return false;
  deps.frames.append(threadId, turnId, frame);
  return true;
}
