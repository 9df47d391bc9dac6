// The clients of `pnpm bench scale`: one `ws` socket per user, one turn each. A client keeps every
// frame it receives (raw bytes), so after its instance dies it can prove that each frame it had is in
// the shared log: it reconnects to the survivor, sends `resume_chat`, and compares the replay.
import { isDeepStrictEqual } from "node:util";
import WebSocket from "ws";
import { isDoneFrame, NESTED_SUBPROTOCOLS, seqOf } from "./_server.js";

/** One socket's life: what it received, and when. */
export interface Leg {
  ws: WebSocket;
  instance: string;
  frames: Buffer[];
  /** Frames without a seq (chat_resumed, errors). */
  unsequenced: Buffer[];
  closed: boolean;
}

/** How a resume on the survivor went (times from `performance.now()`). */
export interface Resume {
  connectMs: number;
  sentAt: number;
  firstFrameAt?: number;
  resumedAt?: number;
  doneAt?: number;
  /** `chat_resumed.last_seq`: frames after it were appended after the resume (by the survivor). */
  lastSeqAtResume?: number;
  /** An `agent_state resumed` arrived: the survivor continued the turn rather than ending it. */
  continued: boolean;
  /** Arrival time of each sequenced frame on the survivor, by seq (firstContinuedAt is read from it). */
  arrivals: Map<number, number>;
}

/** What one client needs from the run: where to connect and whom to tell. */
export interface ClientHooks {
  /** Called for each text chunk of the first socket (the kill waits for a share of them). */
  onTextChunk(client: ScaleClient): void;
  /** Called once, when the client has its turn's done chunk (first socket or resumed one). */
  onDone(client: ScaleClient): void;
}

const TEXT_CHUNK = Buffer.from('{"type":"chunk","content":" word"');
const THREAD_FRAME = Buffer.from('{"type":"thread"');
const MESSAGE_FRAME = Buffer.from('{"type":"message"');
const AGENT_STATE_FRAME = Buffer.from('{"type":"agent_state"');
const RESUMED = Buffer.from('"state":"resumed"');
const startsWith = (data: Buffer, prefix: Buffer) => data.subarray(0, prefix.length).equals(prefix);

/** A user with one socket (and a second one after its instance died) running one turn. */
export class ScaleClient {
  first!: Leg;
  second?: Leg;
  resume?: Resume;
  threadId?: string;
  sentAt = 0;
  doneAt?: number;
  textChunks = 0;

  constructor(
    readonly index: number,
    readonly token: string,
    private readonly hooks: ClientHooks,
  ) {}

  /** Opens the first socket on `instance`. */
  async connect(url: string, instance: string): Promise<void> {
    this.first = await this.open(url, instance, (data) => {
      if (startsWith(data, TEXT_CHUNK)) {
        this.textChunks += 1;
        this.hooks.onTextChunk(this);
      }
    });
  }

  /** Sends the turn's `chat_message`. */
  startTurn(): void {
    this.sentAt = performance.now();
    this.first.ws.send(JSON.stringify({ command: "chat_message", data: { content: "split this in three" } }));
  }

  /** Reconnects to `url` and asks for the thread's frames after `lastSeq` (0: all of them). */
  async resumeOn(url: string, instance: string, from: "zero" | "last"): Promise<void> {
    if (!this.threadId) return;
    const t0 = performance.now();
    const resume: Resume = { connectMs: 0, sentAt: 0, continued: false, arrivals: new Map() };
    this.resume = resume;
    this.second = await this.open(url, instance, (data, seq) => {
      const now = performance.now();
      if (seq >= 0) {
        resume.firstFrameAt ??= now;
        resume.arrivals.set(seq, now);
        if (startsWith(data, AGENT_STATE_FRAME) && data.includes(RESUMED)) resume.continued = true;
      } else if (data.includes('"type":"chat_resumed"')) {
        resume.resumedAt ??= now;
        resume.lastSeqAtResume = (JSON.parse(String(data)) as { last_seq: number }).last_seq;
      }
    });
    resume.connectMs = performance.now() - t0;
    resume.sentAt = performance.now();
    const lastSeq = from === "zero" ? 0 : lastSeqOf(this.first.frames);
    this.second.ws.send(
      JSON.stringify({ command: "resume_chat", data: { thread_id: this.threadId, last_seq: lastSeq } }),
    );
  }

  private open(url: string, instance: string, onFrame: (data: Buffer, seq: number) => void): Promise<Leg> {
    return new Promise((resolve, reject) => {
      // Nested: the turns' subtask text is most of their chunks (a flat socket would get none of it, and
      // gaps in its seqs). The token rides in the header, so no bearer subprotocol joins these.
      const ws = new WebSocket(url, NESTED_SUBPROTOCOLS, {
        perMessageDeflate: false,
        headers: { authorization: `Bearer ${this.token}` },
      });
      const leg: Leg = { ws, instance, frames: [], unsequenced: [], closed: false };
      ws.on("message", (data: Buffer) => {
        const seq = seqOf(data);
        onFrame(data, seq);
        if (seq < 0) {
          leg.unsequenced.push(data);
          return;
        }
        leg.frames.push(data);
        if (!this.threadId && startsWith(data, THREAD_FRAME))
          this.threadId = (JSON.parse(String(data)) as { thread_id: string }).thread_id;
        if (isDoneFrame(data) && this.doneAt === undefined) {
          this.doneAt = performance.now();
          if (this.resume && leg === this.second) this.resume.doneAt = this.doneAt;
          this.hooks.onDone(this);
        }
      });
      ws.once("close", () => {
        leg.closed = true;
      });
      ws.once("open", () => resolve(leg));
      ws.once("error", reject);
    });
  }
}

/** A short account of a client whose checks failed: where its turn ran and how its frames ended. */
export function describeProblem(client: ScaleClient, verdict: Verdict) {
  const typeOf = (frame: Buffer) => /^\{"type":"(\w+)"/.exec(String(frame.subarray(0, 40)))?.[1] ?? "?";
  const final = client.second?.frames ?? client.first.frames;
  return {
    thread_id: client.threadId,
    started_on: client.first.instance,
    resumed: client.second !== undefined,
    verdict,
    last_frames: final.slice(-4).map((f) => `${seqOf(f)}:${typeOf(f)}`),
    unsequenced: [...client.first.unsequenced, ...(client.second?.unsequenced ?? [])]
      .slice(0, 3)
      .map((f) => String(f).slice(0, 300)),
  };
}

/** The seq of the last frame in a list (0 when empty). */
function lastSeqOf(frames: readonly Buffer[]): number {
  const last = frames.at(-1);
  return last ? seqOf(last) : 0;
}

/** What one client's frames prove about its turn. */
export type Verdict = {
  /** Frames received on the first socket that are not in the replay, or differ from it. */
  lost: number;
  /** Places where the final seq sequence skips (the first frame must be seq 1). */
  gaps: number;
  /** Seqs received twice in the final sequence. */
  duplicates: number;
  /** Done chunks in the final sequence; 1 is right, and it must be the last frame. */
  dones: number;
  doneLast: boolean;
  /** The last assistant message's status (complete, interrupted, …), "none", or "no_done". */
  status: string;
  /** Replayed frames that differed in bytes but parsed equal (key order, etc.). */
  byteMismatchesEqualParsed: number;
};

/**
 * Checks a client: the frames its first socket got must reappear, identical and in order, in the
 * replay on the survivor (when it resumed from seq 0), and its final sequence (first socket's
 * frames, then the replayed and live ones) must run 1..N without gaps or repeats and end in one done.
 */
export function verify(client: ScaleClient, from: "zero" | "last"): Verdict {
  const before = client.first.frames;
  let lost = 0;
  let byteMismatchesEqualParsed = 0;
  let final: Buffer[];
  if (client.second) {
    const replay = client.second.frames;
    if (from === "zero") {
      const bySeq = new Map(replay.map((frame) => [seqOf(frame), frame]));
      for (const frame of before) {
        const again = bySeq.get(seqOf(frame));
        if (again === undefined) lost += 1;
        else if (!again.equals(frame)) {
          if (sameJson(again, frame)) byteMismatchesEqualParsed += 1;
          else lost += 1;
        }
      }
      final = replay;
    } else {
      final = [...before, ...replay];
    }
  } else {
    final = before;
  }
  let gaps = 0;
  let duplicates = 0;
  let dones = 0;
  let expected = 1;
  const seen = new Set<number>();
  let status = "none";
  for (const frame of final) {
    const seq = seqOf(frame);
    if (seen.has(seq)) duplicates += 1;
    seen.add(seq);
    if (seq !== expected) gaps += 1;
    expected = seq + 1;
    if (isDoneFrame(frame)) dones += 1;
    if (startsWith(frame, MESSAGE_FRAME)) {
      const { message } = JSON.parse(String(frame)) as { message: { role: string; status?: string } };
      if (message.role === "assistant") status = message.status ?? "none";
    }
  }
  const last = final.at(-1);
  return {
    lost,
    gaps,
    duplicates,
    dones,
    doneLast: last !== undefined && isDoneFrame(last),
    // Without its done the turn has not ended for this client, whatever its messages said so far.
    status: dones === 0 ? "no_done" : status,
    byteMismatchesEqualParsed,
  };
}

function sameJson(a: Buffer, b: Buffer): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(String(a)), JSON.parse(String(b)));
  } catch {
    return false;
  }
}

/**
 * When the survivor's first frame of a resumed client's turn arrived: the earliest frame with a seq
 * past `chat_resumed.last_seq` (everything up to it was the dead instance's, or replayed).
 */
export function firstContinuedAt(resume: Resume): number | undefined {
  const after = resume.lastSeqAtResume;
  if (after === undefined) return undefined;
  let first: number | undefined;
  for (const [seq, at] of resume.arrivals) if (seq > after && (first === undefined || at < first)) first = at;
  return first;
}
