import type { ThreadTurnState } from "@agentwire-chat/protocol";

/** A thread's new live state, for its user's sockets that asked for them (`thread_state`). */
export type ThreadStateChange = {
  userId: string;
  threadId: string;
  state: ThreadTurnState;
  /** The ask_user question a waiting turn asks. */
  question?: string;
  /** A running turn's latest progress line (`send_update`), at any depth. */
  progress?: string;
};

/**
 * Told of each change of a turn's live state, once the turn row holds it: started or resumed
 * (running), suspended (waiting_user), ended (idle). The turn lifecycle calls it; it must not throw.
 */
export interface ThreadStateNotifier {
  changed(change: ThreadStateChange): void;
}
