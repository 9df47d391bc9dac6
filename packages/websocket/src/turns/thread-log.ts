import type { UnstampedFrame } from "@agentwire/protocol";
import type { FrameSubscriber, LoggedFrame } from "./frame-log.js";

/** A frame in flight; also handed out as the LoggedFrame itself (no copy per frame). */
export type Pending = { readonly seq: number; readonly json: string; readonly turnId: string };

/** One thread's part of the log in memory. */
export class ThreadLog {
  pending: Pending[] = [];
  /** Committed frames of the thread's latest turn, contiguous, for replay without a disk read. */
  recent: LoggedFrame[] = [];
  recentTurnId: string | undefined;
  /** The turn whose frames are on disk; frames of a new turn prune the older ones. */
  storedTurnId: string | undefined;
  readonly subscribers = new Map<string, FrameSubscriber>();
  /** First held seq; 0 when not held. */
  heldFrom = 0;
  /** Subscribers are dropped once this seq is delivered; 0 when not ending. */
  endAfter = 0;
  /** `,"thread_id":"…","seq":` — the stamp, spliced into each frame's JSON. */
  readonly stampPrefix: string;

  constructor(
    readonly threadId: string,
    public lastSeq: number,
    public committedSeq: number,
    public touchedAt: number,
  ) {
    this.stampPrefix = `,"thread_id":${JSON.stringify(threadId)},"seq":`;
  }
}

/** The end of this event-loop turn when nothing waits, else a timer. */
export function defaultSchedule(commit: () => void, delayMs: number): void {
  if (delayMs <= 0) setImmediate(commit);
  else setTimeout(commit, delayMs);
}

/** How many of the thread's pending frames the next commit may take (all, or those before a hold). */
export function committable(thread: ThreadLog): number {
  if (thread.heldFrom === 0) return thread.pending.length;
  let n = 0;
  while (n < thread.pending.length && (thread.pending[n] as Pending).seq < thread.heldFrom) n++;
  return n;
}

/** The frame's JSON with its stamp (thread_id, seq) spliced in: encoded once, stored and sent as is. */
export function stamp(thread: ThreadLog, frame: UnstampedFrame, seq: number): string {
  const body = JSON.stringify(frame);
  return body.length > 2
    ? `${body.slice(0, -1)}${thread.stampPrefix}${seq}}`
    : `{${thread.stampPrefix.slice(1)}${seq}}`;
}
