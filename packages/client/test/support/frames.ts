import type { ServerFrame } from "@agentwire-chat/protocol";
import type { Turn } from "../../src/index.js";

/** Every frame of a turn, read through `turn.frames` to its end. */
export async function readAll(turn: Turn): Promise<ServerFrame[]> {
  const frames: ServerFrame[] = [];
  for await (const frame of turn.frames) frames.push(frame);
  return frames;
}

/** The seqs of turn frames. */
export function seqs(frames: readonly ServerFrame[]): number[] {
  return frames.map((f) => ("seq" in f ? (f.seq ?? -1) : -1));
}

/** The text chunks, as `depth:parent:content`. */
export function chunks(frames: readonly ServerFrame[]): string[] {
  return frames.flatMap((f) =>
    f.type === "chunk" && f.content !== "" ? [`${f.depth}:${f.parent_id ?? "-"}:${f.content}`] : [],
  );
}
