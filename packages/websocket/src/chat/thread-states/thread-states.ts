import { type ServerFrame, threadLiveStateOnWire } from "@agentwire-chat/protocol";
import type { ThreadStateChange, ThreadStateNotifier } from "../../turns/thread-state-notifier.js";

/** A socket that asked for `thread_state` frames. */
export type ThreadStateSubscriber = {
  readonly connectionId: string;
  readonly userId: string;
  /** Closed socket: the subscription ends. */
  readonly signal: AbortSignal;
  send(frame: ServerFrame): boolean;
};

/** Carries changes to the other instances (Redis pub/sub) and theirs back. */
export interface ThreadStateRelay {
  publish(change: ThreadStateChange): void;
  /** Starts receiving the other instances' changes. */
  listen(deliver: (change: ThreadStateChange) => void): Promise<void>;
}

type Subscription = { subscriber: ThreadStateSubscriber; snapshotting?: Set<string> };

/**
 * The `thread_state` subscriptions of this process, by user: every change the turn lifecycle reports
 * (here, or on another instance through the relay) goes to each subscribed socket of the thread's user.
 */
export class ThreadStates implements ThreadStateNotifier {
  private readonly byUser = new Map<string, Map<string, Subscription>>();
  /**
   * The latest progress line of each running thread this process heard of (its own turns' and, through
   * the relay, the other instances'), until the thread stops running: what a thread list shows.
   */
  private readonly progress = new Map<string, { userId: string; message: string }>();
  private relay: ThreadStateRelay | undefined;

  /** Sends this instance's changes to the others and delivers theirs here. */
  async relayVia(relay: ThreadStateRelay): Promise<void> {
    this.relay = relay;
    await relay.listen((change) => this.deliver(change));
  }

  changed(change: ThreadStateChange): void {
    this.deliver(change);
    this.relay?.publish(change);
  }

  /**
   * Subscribes a socket, then sends it the state of each of its user's threads that is not idle
   * (`current`, read from the turn rows), so a client coming back sees where work runs or waits.
   * A thread that changed while the rows were read keeps the newer state it was already sent.
   */
  async subscribe(
    subscriber: ThreadStateSubscriber,
    current: () => Promise<ThreadStateChange[]>,
  ): Promise<void> {
    if (subscriber.signal.aborted) return;
    let mine = this.byUser.get(subscriber.userId);
    if (!mine) {
      mine = new Map();
      this.byUser.set(subscriber.userId, mine);
    }
    const subscription: Subscription = { subscriber, snapshotting: new Set() };
    const first = !mine.has(subscriber.connectionId);
    mine.set(subscriber.connectionId, subscription);
    if (first)
      subscriber.signal.addEventListener("abort", () => this.unsubscribe(subscriber), { once: true });
    try {
      for (const change of await current()) {
        if (subscription.snapshotting?.has(change.threadId)) continue;
        const progress =
          change.state === "running" ? this.progressOf(change.userId, change.threadId) : undefined;
        subscriber.send(frameOf(progress === undefined ? change : { ...change, progress }));
      }
    } finally {
      subscription.snapshotting = undefined;
    }
  }

  /** The latest progress line of the user's running thread, if this process heard one since it started. */
  progressOf(userId: string, threadId: string): string | undefined {
    const latest = this.progress.get(threadId);
    return latest?.userId === userId ? latest.message : undefined;
  }

  /** How many sockets of this process are subscribed (tests, metrics). */
  get size(): number {
    let n = 0;
    for (const mine of this.byUser.values()) n += mine.size;
    return n;
  }

  private unsubscribe(subscriber: ThreadStateSubscriber): void {
    const mine = this.byUser.get(subscriber.userId);
    mine?.delete(subscriber.connectionId);
    if (mine?.size === 0) this.byUser.delete(subscriber.userId);
  }

  private deliver(change: ThreadStateChange): void {
    // A turn that starts or resumes keeps its last line until a newer one; one that stops running drops it.
    if (change.progress !== undefined)
      this.progress.set(change.threadId, { userId: change.userId, message: change.progress });
    else if (change.state !== "running") this.progress.delete(change.threadId);
    const mine = this.byUser.get(change.userId);
    if (!mine) return;
    const frame = frameOf(change);
    for (const subscription of mine.values()) {
      subscription.snapshotting?.add(change.threadId);
      subscription.subscriber.send(frame);
    }
  }
}

function frameOf(change: ThreadStateChange): ServerFrame {
  return {
    type: "thread_state",
    thread_id: change.threadId,
    state: threadLiveStateOnWire(change.state),
    ...(change.question !== undefined && { question: change.question }),
    ...(change.progress !== undefined && { progress: change.progress }),
  };
}
