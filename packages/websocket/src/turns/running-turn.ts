import type { StampedFrame, UnstampedFrame } from "@agentwire/protocol";
import type { FrameSink } from "./frame-sink.js";

export type TurnPhase = "running" | "waiting_on_user" | "finished";

/**
 * One turn of one thread, in memory: stamps every frame with the thread's next `seq`, keeps the
 * frames for replay, and fans them out to the sockets watching the thread. A turn does not end
 * when a socket goes away; it ends when its runner calls `finish`.
 */
export class RunningTurn {
  readonly abort = new AbortController();
  phase: TurnPhase = "running";
  /**
   * Called with each frame's seq before the frame goes to any socket, so its owner can record it
   * durably: after a crash the thread's next turn must not reuse a seq a client already has (clients
   * drop frames whose seq they have seen). Must not throw.
   */
  recordSeq: ((seq: number) => void) | undefined;
  /** The driver running this turn's current segment; shutdown waits for it to store the ending. */
  driving: Promise<void> | undefined;
  private readonly frames: StampedFrame[] = [];
  private readonly watchers = new Map<string, FrameSink>();
  private seq: number;

  constructor(
    readonly threadId: string,
    readonly userId: string,
    readonly turnId: string,
    lastSeq: number,
  ) {
    this.seq = lastSeq;
  }

  /** The seq of the last frame emitted on this thread. */
  get lastSeq(): number {
    return this.seq;
  }

  /** The seq of the first frame this turn emitted (lastSeq + 1 before the first emit). */
  get firstSeq(): number {
    return this.frames[0]?.seq ?? this.seq + 1;
  }

  /** Stamps, records and sends one frame; returns the stamped frame. */
  emit(frame: UnstampedFrame): StampedFrame {
    this.seq += 1;
    this.recordSeq?.(this.seq);
    const stamped = { ...frame, thread_id: this.threadId, seq: this.seq } as StampedFrame;
    this.frames.push(stamped);
    for (const sink of this.watchers.values()) sink.send(stamped);
    return stamped;
  }

  /** Adds a watcher; only the thread's owner may watch. Returns false for anyone else. */
  watch(sink: FrameSink): boolean {
    if (sink.userId !== this.userId) return false;
    this.watchers.set(sink.id, sink);
    return true;
  }

  unwatch(sinkId: string): void {
    this.watchers.delete(sinkId);
  }

  isWatchedBy(sinkId: string): boolean {
    return this.watchers.has(sinkId);
  }

  /**
   * Sends `sink` every recorded frame with seq > lastSeq, in order, and makes it a watcher, in one
   * synchronous step so no live frame can slip between the replay and the subscription.
   */
  replayTo(sink: FrameSink, lastSeq: number): number {
    let replayed = 0;
    for (const frame of this.frames) {
      if (frame.seq > lastSeq) {
        sink.send(frame);
        replayed += 1;
      }
    }
    if (this.phase !== "finished") this.watch(sink);
    return replayed;
  }

  finish(): void {
    this.phase = "finished";
    this.watchers.clear();
  }
}
