import type { ServerFrame } from "@agentwire-chat/protocol";

/** What one text frame from the server is: a frame, one of a type this SDK does not know, or bad. */
export type ReadFrame =
  | { kind: "frame"; frame: ServerFrame }
  | { kind: "unknown"; thread_id?: string; seq?: number }
  | { kind: "bad"; code: "bad_frame" | "frame_too_large"; message: string };

/**
 * Reads a frame without zod: the server validates what it sends, so only the envelope is checked
 * here. A frame of a type we do not know is ignored (a newer server must not break an older app).
 */
export function readFrame(data: unknown, maxChars: number): ReadFrame {
  if (typeof data !== "string") return { kind: "bad", code: "bad_frame", message: "a binary frame" };
  if (data.length > maxChars)
    return { kind: "bad", code: "frame_too_large", message: `a frame of ${data.length} characters` };
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return { kind: "bad", code: "bad_frame", message: `not JSON: ${data.slice(0, 80)}` };
  }
  if (typeof raw !== "object" || raw === null || typeof (raw as { type?: unknown }).type !== "string")
    return { kind: "bad", code: "bad_frame", message: "a frame without a type" };
  const { seq, thread_id } = raw as { seq?: unknown; thread_id?: unknown };
  if (
    (seq !== undefined && !Number.isSafeInteger(seq)) ||
    (thread_id !== undefined && typeof thread_id !== "string")
  )
    return { kind: "bad", code: "bad_frame", message: "a frame with a bad seq or thread_id" };
  if (knownTypes[(raw as { type: ServerFrame["type"] }).type] !== 1)
    // Its seq still counts: a newer server's turn frame must not look like a gap.
    return {
      kind: "unknown",
      ...(typeof thread_id === "string" && { thread_id }),
      ...(typeof seq === "number" && { seq }),
    };
  return { kind: "frame", frame: raw as ServerFrame };
}

/**
 * A record, not a list, so the compiler points out a frame type added to the contract. Read with
 * `=== 1`, not `Object.hasOwn` (older React Native engines), so `toString` and friends are no type.
 */
const knownTypes: Record<ServerFrame["type"], 1> = {
  thread: 1,
  message: 1,
  chunk: 1,
  tool_call_update: 1,
  budget_exceeded: 1,
  agent_state: 1,
  question: 1,
  tool_approval_request: 1,
  tool_call: 1,
  usage: 1,
  generation_stopped: 1,
  chat_resumed: 1,
  error: 1,
  job_update: 1,
  node_update: 1,
  workflow_updated: 1,
  context_usage: 1,
  scratchpad_patch: 1,
  plan_created: 1,
  plan_ready_for_review: 1,
  plan_review: 1,
  progress_update: 1,
  thread_state: 1,
  pong: 1,
  turn_started: 1,
  message_queued: 1,
  queued_message_cancelled: 1,
};
