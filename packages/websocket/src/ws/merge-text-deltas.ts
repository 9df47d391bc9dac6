import type { ChunkFrame } from "@agentwire-chat/protocol";

/** A frame waiting in a slow socket's outbox; `chunk` is set for a text delta that may still merge. */
export type Outgoing = { json: string; seq?: number; chunk?: ChunkFrame & { seq: number } };

/** How a chunk frame's JSON starts (frames are encoded with `type` first). */
export const CHUNK_PREFIX = '{"type":"chunk"';

/**
 * Appends frames to a slow socket's outbox, merging each text delta into the one before it when both
 * belong to the same node (parent_id, depth, thinking) and neither ends the turn: the merged chunk's
 * content is the two concatenated and it stands for seqs `seq_start`..`seq`, so a client's text and
 * its resume point come out the same. Returns the outbox's new byte count.
 */
export function queueMerging(outbox: Outgoing[], frames: readonly Outgoing[], bytes: number): number {
  let total = bytes;
  for (const frame of frames) {
    const last = outbox.at(-1);
    const chunk = frame.chunk ?? (frame.json.startsWith(CHUNK_PREFIX) ? textDelta(frame.json) : undefined);
    if (chunk && last?.chunk && sameNode(last.chunk, chunk)) {
      total -= last.json.length;
      const merged = { ...last.chunk, content: last.chunk.content + chunk.content, seq: chunk.seq };
      merged.seq_start = last.chunk.seq_start ?? last.chunk.seq;
      const json = JSON.stringify(merged);
      outbox[outbox.length - 1] = { json, seq: chunk.seq, chunk: merged };
      total += json.length;
      continue;
    }
    outbox.push(chunk ? { json: frame.json, seq: chunk.seq, chunk } : frame);
    total += frame.json.length;
  }
  return total;
}

function textDelta(json: string): (ChunkFrame & { seq: number }) | undefined {
  const frame = JSON.parse(json) as ChunkFrame & { seq: number };
  return frame.done || typeof frame.seq !== "number" ? undefined : frame;
}

function sameNode(a: ChunkFrame, b: ChunkFrame): boolean {
  return a.parent_id === b.parent_id && a.depth === b.depth && a.thinking === b.thinking;
}
