import type { UnstampedFrame } from "@agentwire-chat/protocol";

/** One frame as the log holds it: its seq on the thread and its JSON text, encoded once (stored and sent as is). */
export type LoggedFrame = {
  readonly seq: number;
  readonly json: string;
  /** `performance.now()` when it was appended in this process (absent for frames read back). */
  readonly at?: number;
  /** When it was logged, epoch ms (on frames read back by `readTurn`: a rebuilt turn's clock). */
  readonly loggedAt?: number;
};

/** Receives a thread's committed frames in seq order, each once (a socket, or an observer in tests). */
export interface FrameSubscriber {
  readonly id: string;
  deliver(frames: readonly LoggedFrame[]): void;
}

/**
 * The frames of every thread, in seq order: the one path from a turn to its clients. The turn
 * lifecycle appends, `resume_chat` replays, restart recovery reads a turn back. A frame reaches
 * subscribers (and `readAfter`) only once it is durable, so a client never holds a frame a crash can
 * lose; seqs are allocated by the log, never reused for a frame a client may have seen.
 *
 * The local implementation is memory plus SQLite group commits; the interface is the seam for a
 * shared log (Redis Streams) that lets another instance serve the same thread.
 */
export interface FrameLog {
  /**
   * Readies the thread for appends by this process: with a shared log another instance may have
   * appended since, so its last seq is read again. Call before a turn (or a resumed segment) appends;
   * the thread then stays in memory until `endSubscriptions` or `handOff`, however long the turn is
   * silent. `{ turn: false }`: a single frame appended outside any turn, which pins nothing.
   */
  claim(threadId: string, options?: { turn?: boolean }): Promise<void>;
  /** Stamps the frame with the thread's next seq and queues it for the next commit; returns the stamp. */
  append(threadId: string, turnId: string, frame: UnstampedFrame): LoggedFrame;
  /**
   * Queues the turn's latest loop state (JSON) to be stored over its previous one, in the commit of
   * the frames appended before it, never earlier. Absent: the log cannot keep checkpoints, and a turn
   * it served ends `interrupted` after a crash.
   */
  checkpoint?(threadId: string, turnId: string, json: string): void;
  /**
   * Frames appended from now on stay uncommitted (and unsent) until `release`: a question must not
   * reach a client before the suspension it belongs to is stored.
   */
  hold(threadId: string): void;
  /** Ends a hold: the held frames go out with the next commit. */
  release(threadId: string): void;
  /**
   * The turn stops appending here (it waits on the user, whose answer may reach another instance):
   * this process's subscribers of the thread go on receiving whoever appends next.
   */
  handOff(threadId: string): void;
  /** Committed frames of the thread with seq > afterSeq, in order (the thread's last turn at most). */
  readAfter(threadId: string, afterSeq: number): Promise<LoggedFrame[]>;
  /** Every committed frame of one turn, in order (restart recovery rebuilds the turn from them). */
  readTurn(threadId: string, turnId: string): Promise<LoggedFrame[]>;
  /**
   * Delivers the committed frames after `afterSeq` to the subscriber, then, if `follow`, every frame
   * committed later, with nothing lost or doubled in between. Returns how many frames were replayed
   * and the thread's last committed seq at that point.
   */
  resume(
    threadId: string,
    afterSeq: number,
    subscriber: FrameSubscriber,
    follow: boolean,
  ): Promise<{ replayed: number; lastSeq: number }>;
  /** Adds a live subscriber of the thread (frames committed from now on). */
  subscribe(threadId: string, subscriber: FrameSubscriber): void;
  /** Removes a subscriber from one thread. */
  unsubscribe(threadId: string, subscriberId: string): void;
  /** Removes a subscriber from every thread (its socket closed). */
  unsubscribeEverywhere(subscriberId: string): void;
  /** Once every frame appended so far on the thread is delivered, drops its subscribers (the turn ended). */
  endSubscriptions(threadId: string): void;
  /** The seq of the last frame appended on the thread, committed or not. */
  lastSeq(threadId: string): number;
  /** Resolves once everything appended so far (held frames aside) is committed and delivered. */
  flush(): Promise<void>;
  /** The bytes of frames held in memory, their bound, and idle threads forgotten to keep it (the metrics read it). */
  memoryStats?(): FrameLogMemoryStats;
  /** Commits what is pending (held frames aside) and stops; appends after this throw. */
  close(): void;
}

/** The one log line for frames a log could not commit (they were never sent); every log reports through it. */
export function logFrameErrors(logger: { error(obj: object, msg: string): void }) {
  return (err: unknown, threadId: string) =>
    logger.error({ err, thread_id: threadId }, "frames could not be logged; not sent");
}

/** What a frame log holds in memory now, its bound, and how many idle threads it forgot to stay under it. */
export type FrameLogMemoryStats = { bytes: number; maxBytes: number; evictions: number };
