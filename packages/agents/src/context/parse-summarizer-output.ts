import { ScratchpadOp } from "@agentwire-chat/protocol";
import { z } from "zod";

/** Longest summary kept; a longer one is cut rather than refused. */
export const MAX_SUMMARY_CHARS = 16_000;

/** What the summarizer answered, or why it cannot be used. */
export type SummarizerOutput =
  | { ok: true; summary: string; ops: ScratchpadOp[]; droppedOps: number }
  | { ok: false; message: string };

const Output = z.object({ summary: z.string().trim().min(1), scratchpad: z.array(z.unknown()).optional() });

/**
 * Reads the summarizer's answer defensively: the JSON object may sit in a code fence or among other
 * text; a missing or empty summary is a failure; invalid scratchpad ops are dropped one by one.
 */
export function parseSummarizerOutput(text: string): SummarizerOutput {
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first < 0 || last <= first) return { ok: false, message: "the summarizer answered no JSON object" };
  let json: unknown;
  try {
    json = JSON.parse(text.slice(first, last + 1));
  } catch {
    return { ok: false, message: "the summarizer's JSON does not parse" };
  }
  const parsed = Output.safeParse(json);
  if (!parsed.success) return { ok: false, message: "the summarizer's JSON has no summary" };
  const ops: ScratchpadOp[] = [];
  let droppedOps = 0;
  for (const raw of parsed.data.scratchpad ?? []) {
    const op = ScratchpadOp.safeParse(raw);
    if (op.success) ops.push(op.data);
    else droppedOps += 1;
  }
  return { ok: true, summary: parsed.data.summary.slice(0, MAX_SUMMARY_CHARS), ops, droppedOps };
}
