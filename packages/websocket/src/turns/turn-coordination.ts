/** Where a thread's turn runs when another instance runs it. */
export type TurnOwner = { instanceId: string; turnId: string };

/**
 * What the turn lifecycle asks of the other instances, if any. One process alone (SQLite) owns every
 * turn: `localCoordination`. With Redis a turn is a lease, renewed while it runs; commands for a turn
 * that runs elsewhere are sent to its instance.
 */
export interface TurnCoordination {
  /** Claims the thread for this turn across instances; false when another instance runs a turn there. */
  claim(threadId: string, turnId: string, onLost: () => void): Promise<boolean>;
  /** Gives the claim up (the turn ended or waits on the user). */
  release(threadId: string, turnId: string): Promise<void>;
  /**
   * Gives the claim of a turn left running up so another instance continues it at once (a rolling
   * deploy); absent: `release`, and the others find it on their next sweep.
   */
  handOver?(threadId: string, turnId: string): Promise<void>;
  /** The instance running the thread's turn, when it is another one. */
  remoteOwner(threadId: string): Promise<TurnOwner | undefined>;
  /** Asks the owning instance to stop its turn. */
  stopRemote(owner: TurnOwner, threadId: string): Promise<void>;
}

/** One process: every claim succeeds (the registry already refused a second turn), nothing is remote. */
export const localCoordination: TurnCoordination = {
  claim: async () => true,
  release: async () => {},
  remoteOwner: async () => undefined,
  stopRemote: async () => {},
};
