import type { StampedFrame, TurnStatus, UnstampedFrame } from "@agentwire-chat/protocol";
import type { FrameLog, FrameSubscriber } from "@agentwire-chat/storage";

/** An observer of a turn's frames as objects (tests, tools); sockets subscribe to the log's JSON instead. */
export interface FrameSink {
  readonly id: string;
  readonly userId: string;
  send(frame: StampedFrame): void;
}

/**
 * One active turn of one thread in this process: its abort switch, its status, and the thread's
 * frame log it appends to. A turn does not end when a socket goes away; it ends when its runner
 * finishes it.
 */
export class ActiveTurn {
  readonly abort = new AbortController();
  /** `running` or `waiting_user` while active; how it ended afterwards. */
  status: TurnStatus = "running";
  /** The driver running this turn's current segment; shutdown waits for it to store the ending. */
  driving: Promise<void> | undefined;
  /**
   * Whether another instance can continue the turn from its checkpoint (chat turns); false for a
   * route that keeps none (media, workflows), which shutdown interrupts instead of handing over.
   */
  continuable = true;
  /** Stopped here and left `running` for another instance (a rolling deploy's handover). */
  handedOver = false;
  /**
   * A message to steer this turn was queued in this process since its last model call: the one hint
   * a lone instance needs to look for it (with other instances, the queue is read before every call).
   */
  steerPending = false;

  constructor(
    readonly log: FrameLog,
    readonly threadId: string,
    readonly userId: string,
    readonly turnId: string,
  ) {}

  /** True until the turn ended here (or was handed over to another instance). */
  get active(): boolean {
    return !this.handedOver && (this.status === "running" || this.status === "waiting_user");
  }

  /** The seq of the last frame appended on this thread. */
  get lastSeq(): number {
    return this.log.lastSeq(this.threadId);
  }

  /** Appends one frame to the thread's log (sent once committed); returns its seq. */
  emit(frame: UnstampedFrame): number {
    return this.log.append(this.threadId, this.turnId, frame).seq;
  }

  /** Stores the turn's loop state (JSON) with the frames appended before it, if the log keeps checkpoints. */
  checkpoint(json: string): void {
    this.log.checkpoint?.(this.threadId, this.turnId, json);
  }

  /** Adds a subscriber of the thread's frames; only the thread's owner may watch. */
  watch(subscriber: FrameSubscriber & { userId: string }): boolean;
  watch(sink: FrameSink): boolean;
  watch(target: (FrameSubscriber | FrameSink) & { userId: string }): boolean {
    if (target.userId !== this.userId) return false;
    this.log.subscribe(this.threadId, "deliver" in target ? target : parsing(target));
    return true;
  }

  unwatch(subscriberId: string): void {
    this.log.unsubscribe(this.threadId, subscriberId);
  }
}

function parsing(sink: FrameSink): FrameSubscriber {
  return {
    id: sink.id,
    deliver: (frames) => {
      for (const f of frames) sink.send(JSON.parse(f.json) as StampedFrame);
    },
  };
}
