import type { UnstampedFrame } from "@agentwire-chat/protocol";
import type { FrameSubscriber, LoggedFrame } from "./frame-log.js";
import { bytesOf, MemoryBound } from "./memory-bound.js";

/** A frame in flight; also handed out as the LoggedFrame itself (no copy per frame). */
export type Pending = {
  readonly seq: number;
  readonly json: string;
  readonly turnId: string;
  readonly at: number;
};

/** A turn's loop state as a commit writes it: JSON, over the turn's previous one. */
export type StoredCheckpoint = { threadId: string; turnId: string; json: string };

/** A checkpoint waiting for its commit; it claims the frames up to `afterSeq`. */
type QueuedCheckpoint = StoredCheckpoint & { afterSeq: number };

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
  /** The ended turn's watchers are dropped once this seq is delivered; 0 when not ending. */
  endAfter = 0;
  /**
   * Who watched when the turn ended (endSubscriptions). Only they are dropped once its last frame is
   * delivered: a watcher the next turn added while that frame was still committing stays.
   */
  ending: Set<string> | undefined = undefined;
  /** The turn's latest checkpoint not yet taken by a commit: it goes once the frames before it do. */
  checkpoint: QueuedCheckpoint | undefined = undefined;
  /**
   * A turn of this process appends here (claimed, not yet ended or handed off): the idle sweep leaves
   * the thread alone however long the turn stays silent (a long tool call while nobody watches).
   */
  turnOpen = false;

  /** Adds a watcher of the thread; one that watched the ending turn too stays for the next. */
  follow(subscriber: FrameSubscriber): void {
    this.subscribers.set(subscriber.id, subscriber);
    this.ending?.delete(subscriber.id);
  }

  /** Drops the ended turn's watchers once its last frame is delivered (see `ending`). */
  dropEndedWatchers(): void {
    if (this.endAfter === 0 || this.committedSeq < this.endAfter) return;
    this.endAfter = 0;
    for (const id of this.ending ?? []) this.subscribers.delete(id);
    this.ending = undefined;
  }
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
function committable(thread: ThreadLog): number {
  if (thread.heldFrom === 0) return thread.pending.length;
  let n = 0;
  while (n < thread.pending.length && (thread.pending[n] as Pending).seq < thread.heldFrom) n++;
  return n;
}

/** The thread's highest seq a commit has taken (every seq below its first pending frame). */
function takenSeq(thread: ThreadLog): number {
  const first = thread.pending[0];
  return first ? first.seq - 1 : thread.lastSeq;
}

/** The frame's JSON with its stamp (thread_id, seq) spliced in: encoded once, stored and sent as is. */
function stamp(thread: ThreadLog, frame: UnstampedFrame, seq: number): string {
  const body = JSON.stringify(frame);
  return body.length > 2
    ? `${body.slice(0, -1)}${thread.stampPrefix}${seq}}`
    : `{${thread.stampPrefix.slice(1)}${seq}}`;
}

/**
 * Hands a commit's frames to the thread's subscribers and keeps them for replay: marks them committed,
 * remembers the latest turn's frames (at most `maxRecent`), and drops the subscribers once the ending
 * frame is out. A subscriber that throws is reported, never allowed to stop the others. Returns the
 * bytes of the frames memory let go (an older turn's, or those past `maxRecent`).
 */
export function deliverCommitted(
  thread: ThreadLog,
  frames: Pending[],
  now: number,
  maxRecent: number,
  onError: (error: unknown, threadId: string) => void,
): number {
  thread.committedSeq = (frames.at(-1) as LoggedFrame).seq;
  thread.touchedAt = now;
  const freed = remember(thread, frames, maxRecent);
  for (const subscriber of thread.subscribers.values()) {
    try {
      subscriber.deliver(frames);
    } catch (error) {
      onError(error, thread.threadId);
    }
  }
  thread.dropEndedWatchers();
  return freed;
}

/** Keeps the committed frames for replay; returns the bytes of those it lets go (each frame once). */
function remember(thread: ThreadLog, frames: Pending[], maxRecent: number): number {
  const lastTurn = (frames.at(-1) as Pending).turnId;
  let freed = 0;
  if (thread.recentTurnId !== lastTurn) {
    // Keep only the latest turn's frames (what the disk keeps too).
    const from = frames.findIndex((f) => f.turnId === lastTurn);
    freed += bytesOf(thread.recent) + bytesOf(frames, 0, from);
    thread.recent = frames.slice(from);
    thread.recentTurnId = lastTurn;
  } else {
    for (const f of frames) thread.recent.push(f);
  }
  if (thread.recent.length > maxRecent) {
    const keep = maxRecent >> 1;
    freed += bytesOf(thread.recent, 0, thread.recent.length - keep);
    thread.recent = thread.recent.slice(-keep);
  }
  return freed;
}

/** Committed frames after `afterSeq` held in memory, or undefined when memory does not reach back that far. */
export function recentAfter(thread: ThreadLog, afterSeq: number): LoggedFrame[] | undefined {
  if (afterSeq >= thread.committedSeq) return [];
  const first = thread.recent[0];
  if (first && first.seq <= afterSeq + 1) return thread.recent.slice(afterSeq + 1 - first.seq);
  return undefined;
}

/** A group of frames of one turn as stored in `frame_batches`: consecutive seqs from `first`, JSON lines. */
export type StoredBatch = {
  threadId: string;
  firstSeq: number;
  lastSeq: number;
  turnId: string;
  lines: string;
};

/**
 * The rows one commit writes for a thread: one per run of frames of the same turn. `pruneBefore` names
 * the turn whose first frames these are when older turns' rows must go (a thread keeps its last turn).
 */
export function batchesOf(thread: ThreadLog, frames: Pending[]): { batch: StoredBatch; prune: boolean }[] {
  const out: { batch: StoredBatch; prune: boolean }[] = [];
  let start = 0;
  for (let i = 1; i <= frames.length; i++) {
    const first = frames[start] as Pending;
    if (i < frames.length && (frames[i] as Pending).turnId === first.turnId) continue;
    const prune = thread.storedTurnId !== first.turnId;
    thread.storedTurnId = first.turnId;
    const run = frames.slice(start, i);
    const lines = run.length === 1 ? first.json : run.map((f) => f.json).join("\n");
    out.push({
      batch: {
        threadId: thread.threadId,
        firstSeq: first.seq,
        lastSeq: (run.at(-1) as Pending).seq,
        turnId: first.turnId,
        lines,
      },
      prune,
    });
    start = i;
  }
  return out;
}

/** A stored batch row as read back. */
export type BatchRow = { first_seq: number; frames: string; created_at?: number };

/** Splits stored batches back into frames, keeping those after `afterSeq`. */
export function framesOf(rows: readonly BatchRow[], afterSeq: number): LoggedFrame[] {
  const out: LoggedFrame[] = [];
  for (const row of rows) {
    const lines = row.frames.split("\n");
    const first = Number(row.first_seq);
    const loggedAt = row.created_at === undefined ? undefined : Number(row.created_at);
    for (let i = 0; i < lines.length; i++) {
      const seq = first + i;
      if (seq <= afterSeq) continue;
      out.push(
        loggedAt === undefined
          ? { seq, json: lines[i] as string }
          : { seq, json: lines[i] as string, loggedAt },
      );
    }
  }
  return out;
}

/** Hands the subscriber each seq once (a replay and a live delivery may overlap). */
export function dedupe(subscriber: FrameSubscriber, afterSeq: number): FrameSubscriber & { seq(): number } {
  let last = afterSeq;
  return {
    id: subscriber.id,
    seq: () => last,
    deliver(frames) {
      const fresh = frames[0] && frames[0].seq > last ? frames : frames.filter((f) => f.seq > last);
      if (fresh.length === 0) return;
      last = (fresh.at(-1) as LoggedFrame).seq;
      subscriber.deliver(fresh);
    },
  };
}

/**
 * A subscriber that holds live frames while a replay is read (asynchronously, from disk or a stream)
 * and passes them on after it: live frames newer than the replay must not overtake it, or the replay's
 * older frames would then look like duplicates and be lost.
 */
export function gated(subscriber: FrameSubscriber, afterSeq: number) {
  const inner = dedupe(subscriber, afterSeq);
  let held: LoggedFrame[] | undefined = [];
  return {
    id: subscriber.id,
    seq: () => inner.seq(),
    deliver(frames: readonly LoggedFrame[]) {
      if (held) for (const f of frames) held.push(f);
      else inner.deliver(frames);
    },
    /** Delivers the replay, then what arrived meanwhile, and lets later frames straight through. */
    open(replay: readonly LoggedFrame[]) {
      const waiting = held ?? [];
      held = undefined;
      if (replay.length > 0) inner.deliver(replay);
      if (waiting.length > 0) inner.deliver(waiting);
    },
  };
}

/**
 * The in-memory side every frame log shares: each thread's log, the threads with frames to commit, and
 * the callers waiting for a flush. The logs differ only in where a commit writes and how they replay.
 */
export class LogMemory {
  readonly threads = new Map<string, ThreadLog>();
  /** Threads with pending frames (held ones included). */
  private readonly dirty = new Set<ThreadLog>();
  /** Threads with a checkpoint waiting. */
  private readonly checkpointed = new Set<ThreadLog>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  /** Commits begun (`take`) and ended (`committed`): a flush waits for a commit, not for a quiet moment. */
  private started = 0;
  private finished = 0;
  private flushWaiters: { after: number; resolve: () => void }[] = [];
  /** The bytes held and the idle threads to forget first when they pass `maxBytes`. */
  readonly bound: MemoryBound<ThreadLog>;

  constructor(
    private readonly now: () => number = Date.now,
    maxBytes = Number.POSITIVE_INFINITY,
  ) {
    this.bound = new MemoryBound<ThreadLog>(maxBytes);
  }

  /** Stamps the frame with the thread's next seq and queues it for the next commit. */
  queue(thread: ThreadLog, turnId: string, frame: UnstampedFrame): Pending {
    const seq = ++thread.lastSeq;
    const json = stamp(thread, frame, seq);
    const entry: Pending = { seq, json, turnId, at: performance.now() };
    thread.pending.push(entry);
    this.dirty.add(thread);
    // The byte bound's whole cost on the append path: the JSON is built for the store anyway.
    this.bound.bytes += json.length;
    return entry;
  }

  /** Frames of `bytes` left memory (dropped by a refused commit, or let go after delivery). */
  freed(bytes: number): void {
    this.bound.bytes -= bytes;
  }

  /** The thread was used (a delivery, a replay, its turn's end): the most recently used of the idle ones. */
  touch(thread: ThreadLog): void {
    if (!thread.turnOpen) this.bound.touch(thread);
  }

  /**
   * Over the byte bound: forgets the least recently used idle threads until under it (their frames are
   * stored; a replay reads them back). Call between commits, never during one.
   */
  evictIdle(): number {
    if (this.bound.bytes <= this.bound.maxBytes) return 0;
    return this.bound.evict(this.threads, idle);
  }

  /**
   * Queues the turn's checkpoint (replacing one not yet taken): a commit takes it only with or after
   * every frame appended before it, so a stored checkpoint never claims work whose frames are not.
   */
  checkpoint(thread: ThreadLog, turnId: string, json: string): void {
    thread.checkpoint = { threadId: thread.threadId, turnId, json, afterSeq: thread.lastSeq };
    this.checkpointed.add(thread);
  }

  /** The checkpoints whose frames are all taken by now (call right after `take`, in the same commit). */
  takeCheckpoints(): StoredCheckpoint[] {
    const out: StoredCheckpoint[] = [];
    for (const thread of this.checkpointed) {
      const queued = thread.checkpoint;
      if (queued && queued.afterSeq <= takenSeq(thread)) {
        const { afterSeq: _, ...stored } = queued;
        out.push(stored);
        thread.checkpoint = undefined;
        // A waiting checkpoint kept the thread from eviction; its frames may all be delivered already.
        this.touch(thread);
      }
      if (!thread.checkpoint) this.checkpointed.delete(thread);
    }
    return out;
  }

  /** Puts a checkpoint whose commit failed back, unless a newer one of its thread waits. */
  requeueCheckpoint(stored: StoredCheckpoint): void {
    const thread = this.threads.get(stored.threadId);
    if (!thread || thread.checkpoint) return;
    thread.checkpoint = { ...stored, afterSeq: 0 };
    this.checkpointed.add(thread);
  }

  /** Frames appended to the thread from now on wait for `release`. */
  hold(threadId: string): void {
    const thread = this.threads.get(threadId);
    if (thread && thread.heldFrom === 0) thread.heldFrom = thread.lastSeq + 1;
  }

  /** Ends a hold; true when frames wait for a commit now. */
  release(threadId: string): boolean {
    const thread = this.threads.get(threadId);
    if (!thread || thread.heldFrom === 0) return false;
    thread.heldFrom = 0;
    return thread.pending.length > 0;
  }

  /** Drops the thread's subscribers once everything appended so far is delivered. */
  endSubscriptions(threadId: string): void {
    const thread = this.threads.get(threadId);
    if (!thread) return;
    thread.turnOpen = false;
    if (thread.committedSeq >= thread.lastSeq) thread.subscribers.clear();
    else {
      thread.endAfter = thread.lastSeq;
      thread.ending = new Set(thread.subscribers.keys());
    }
    this.touch(thread);
  }

  unsubscribe(threadId: string, subscriberId: string): void {
    const thread = this.threads.get(threadId);
    if (thread?.subscribers.delete(subscriberId)) this.touch(thread);
  }

  unsubscribeEverywhere(subscriberId: string): void {
    for (const thread of this.threads.values())
      if (thread.subscribers.delete(subscriberId)) this.touch(thread);
  }

  /** True when some thread has frames the next commit may take. */
  hasCommittable(): boolean {
    for (const thread of this.dirty) if (committable(thread) > 0) return true;
    for (const thread of this.checkpointed)
      if (thread.checkpoint && thread.checkpoint.afterSeq <= takenSeq(thread) + committable(thread))
        return true;
    return false;
  }

  /** A commit begins: takes every committable frame of every thread. Pair it with `committed`. */
  take(): [ThreadLog, Pending[]][] {
    this.started++;
    const ready: [ThreadLog, Pending[]][] = [];
    const now = this.now();
    for (const thread of this.dirty) {
      const n = committable(thread);
      if (n > 0) {
        ready.push([thread, thread.pending.splice(0, n)]);
        // Its pending frames are in flight now: the idle sweep must not take the thread meanwhile.
        thread.touchedAt = now;
      }
      if (thread.pending.length === 0) this.dirty.delete(thread);
    }
    return ready;
  }

  /**
   * Resolves once everything committable now is committed and delivered: by the commit in flight when
   * nothing new waits (`inFlight`), else by the next one to begin. Appends that keep coming after the
   * call do not hold it back.
   */
  waitFlushed(inFlight: boolean): Promise<void> {
    const pending = this.hasCommittable();
    if (!pending && !inFlight) return Promise.resolve();
    const after = pending ? this.started + 1 : this.started;
    return new Promise((resolve) => this.flushWaiters.push({ after, resolve }));
  }

  /**
   * Puts taken frames back at the head of the thread's queue (a commit to retry): the flushes waiting
   * now wait for the next commit.
   */
  requeue(thread: ThreadLog, frames: readonly Pending[]): void {
    thread.pending.unshift(...frames);
    this.dirty.add(thread);
    for (const waiter of this.flushWaiters) waiter.after = Math.max(waiter.after, this.started + 1);
  }

  /** A commit ended (written and delivered, or failed and reported): wakes the flushes it settles. */
  committed(): void {
    this.finished++;
    if (this.flushWaiters.length === 0) return;
    const waiting = this.flushWaiters;
    this.flushWaiters = [];
    for (const waiter of waiting) {
      if (waiter.after <= this.finished) waiter.resolve();
      else this.flushWaiters.push(waiter);
    }
  }

  /** Sweeps threads idle for `idleMs`, checking every `idleMs` (at most a minute apart), until `stopSweeping`. */
  startSweeping(idleMs: number): void {
    this.sweeper = setInterval(() => this.sweep(this.now() - idleMs), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  stopSweeping(): void {
    clearInterval(this.sweeper);
  }

  /**
   * Forgets threads idle since `cutoff` with nothing pending, held or subscribed and no turn of this
   * process appending (their frames stay stored).
   */
  private sweep(cutoff: number): void {
    for (const [id, thread] of this.threads) {
      if (thread.touchedAt < cutoff && idle(thread)) {
        this.threads.delete(id);
        this.bound.forget(thread);
      }
    }
  }
}

/**
 * Nothing of this process needs the thread in memory: no turn appending, nothing pending or held, no
 * subscriber, no checkpoint waiting (frames in a running commit are taken out of `pending`: the sweep
 * relies on `touchedAt`, eviction runs only between commits).
 */
function idle(thread: ThreadLog): boolean {
  return (
    !thread.turnOpen &&
    thread.pending.length === 0 &&
    thread.subscribers.size === 0 &&
    thread.heldFrom === 0 &&
    thread.checkpoint === undefined
  );
}
