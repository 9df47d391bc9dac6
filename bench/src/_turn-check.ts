// What one socket's frames say about its turn, read from the raw bytes without JSON.parse (the
// clients share the machine with the server they measure). A merged text chunk (a slow socket gets
// them, see protocol.md "A slow socket") stands for seqs `seq_start`..`seq`, and counts as that many
// chunks.
import { digitsAt, isDoneFrame, seqOf, seqStartOf } from "./_server.js";

const CHUNK = Buffer.from('{"type":"chunk"');
const QUEUED = Buffer.from('{"type":"agent_state","state":"queued"');
const DEPTH_KEY = Buffer.from('"depth":');
const startsWith = (data: Buffer, prefix: Buffer) => data.subarray(0, prefix.length).equals(prefix);

export class TurnFrames {
  /** Frames with a seq. */
  frames = 0;
  /** Seqs those frames stand for. */
  seqs = 0;
  lastSeq = 0;
  /** Frames whose first seq is past the previous frame's seq + 1 (the first frame's must be 1). */
  gaps = 0;
  /** Seqs those gaps skipped. */
  skipped = 0;
  /** Frames whose first seq is not above the previous frame's seq: a repeat or a reorder. */
  notIncreasing = 0;
  dones = 0;
  doneSeq = 0;
  /** Frames with a seq after the done. */
  afterDone = 0;
  /** Text chunks (not the done) at depth 0 and deeper. */
  rootText = 0;
  nestedText = 0;
  /** The admission queue made the turn wait (`agent_state queued`). */
  queued = false;

  /** Takes one frame; returns how many text chunks it stands for (0 for any other frame). */
  add(data: Buffer): number {
    if (startsWith(data, QUEUED)) this.queued = true;
    const seq = seqOf(data);
    if (seq < 0) return 0; // not a turn frame (errors, pong)
    const first = seqStartOf(data);
    const from = first < 0 ? seq : first;
    this.frames += 1;
    this.seqs += seq - from + 1;
    if (from <= this.lastSeq) this.notIncreasing += 1;
    else if (from > this.lastSeq + 1) {
      this.gaps += 1;
      this.skipped += from - this.lastSeq - 1;
    }
    this.lastSeq = Math.max(this.lastSeq, seq);
    if (this.dones > 0) this.afterDone += 1;
    if (!startsWith(data, CHUNK)) return 0;
    if (isDoneFrame(data)) {
      this.dones += 1;
      this.doneSeq = seq;
      return 0;
    }
    const at = data.indexOf(DEPTH_KEY);
    const text = seq - from + 1;
    if (at >= 0 && digitsAt(data, at + DEPTH_KEY.length) > 0) this.nestedText += text;
    else this.rootText += text;
    return text;
  }

  /** One done, and nothing after it. */
  get doneLast(): boolean {
    return this.dones === 1 && this.afterDone === 0;
  }

  /** A nested socket's turn: seqs 1..done each once, in order, ending with the one done. */
  nestedOk(): boolean {
    return this.doneLast && this.gaps === 0 && this.notIncreasing === 0 && this.seqs === this.doneSeq;
  }
}
