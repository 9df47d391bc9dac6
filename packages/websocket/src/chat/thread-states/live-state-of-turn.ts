import type { SuspendedTurn, TurnRow } from "@agentwire-chat/storage";
import type { ThreadStateChange } from "../../turns/thread-state-notifier.js";

/** The live state of a thread whose latest turn is active (running or waiting on the user). */
export function liveStateOfTurn(
  turn: Pick<TurnRow, "userId" | "threadId" | "status" | "suspendedState">,
): ThreadStateChange {
  const { userId, threadId } = turn;
  if (turn.status !== "waiting_user") return { userId, threadId, state: "running" };
  return { userId, threadId, state: "waiting_user", ...questionOf(turn.suspendedState) };
}

/** The question of a suspension that asks one (an approval has none: its frame says what it asks). */
function questionOf(saved: SuspendedTurn | null | undefined): { question?: string } {
  const suspension = saved?.state.suspension;
  return suspension?.kind === "question" ? { question: suspension.question } : {};
}
