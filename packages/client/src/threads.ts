import type {
  QueuedMessage,
  StoredMessage,
  ThreadListing,
  ThreadStateFrame,
  ThreadTurnState,
} from "@agentwire-chat/protocol";

/** A thread's live state as `thread_state` says it, in turn words (`waiting_user`). */
export type ThreadState = Omit<ThreadStateFrame, "type" | "state"> & { state: ThreadTurnState };

/** The user's threads: listed and read over HTTP, followed live over the socket. */
export interface Threads {
  /** The user's threads, most recently updated first, each with its live `state` in turn words. */
  list(): Promise<ThreadListing[]>;
  /**
   * A thread's stored messages on its current branch, root first (`leaf`: the branch through that message
   * down to its newest leaf); rows with alternatives carry `sibling_ids`.
   */
  messages(threadId: string, options?: { leaf?: string }): Promise<StoredMessage[]>;
  /** The thread's queued messages, in the order they will start. */
  queue(threadId: string): Promise<QueuedMessage[]>;
  /**
   * Calls `listener` with every change of a thread's live state (first with each thread that is not
   * idle), across reconnects; returns the unsubscribe.
   */
  subscribe(listener: (state: ThreadState) => void): () => void;
}
