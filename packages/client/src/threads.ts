import type { StoredMessage, ThreadStateFrame, ThreadSummary } from "@agentwire-chat/protocol";

/** A thread's live state as `thread_state` says it. */
export type ThreadState = Omit<ThreadStateFrame, "type">;

/** The user's threads: listed and read over HTTP, followed live over the socket. */
export interface Threads {
  /** The user's threads, most recently updated first, each with its live `state`. */
  list(): Promise<ThreadSummary[]>;
  /** A thread's stored messages, in order. */
  messages(threadId: string): Promise<StoredMessage[]>;
  /**
   * Calls `listener` with every change of a thread's live state (first with each thread that is not
   * idle), across reconnects; returns the unsubscribe.
   */
  subscribe(listener: (state: ThreadState) => void): () => void;
}
