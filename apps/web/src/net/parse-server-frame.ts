import type { ServerFrame } from "@agentwire/protocol";

/**
 * Reads one text frame from the server. The server validates what it sends against the contract
 * (its tests check every outbound frame), so the page only checks the envelope and leaves zod out
 * of the bundle; a frame of an unknown type is ignored, so a newer server does not break the page.
 */
export function parseServerFrame(text: string): ServerFrame | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof raw !== "object" || raw === null || typeof (raw as { type?: unknown }).type !== "string") {
    return undefined;
  }
  return Object.hasOwn(knownTypes, (raw as { type: string }).type) ? (raw as ServerFrame) : undefined;
}

/** A record, not a list, so the compiler points out a frame type added to the contract. */
const knownTypes: Record<ServerFrame["type"], true> = {
  thread: true,
  message: true,
  chunk: true,
  tool_call_update: true,
  budget_exceeded: true,
  agent_state: true,
  question: true,
  tool_approval_request: true,
  tool_call: true,
  usage: true,
  generation_stopped: true,
  chat_resumed: true,
  error: true,
  job_update: true,
  node_update: true,
  context_usage: true,
  scratchpad_patch: true,
  plan_created: true,
  plan_ready_for_review: true,
  plan_review: true,
  progress_update: true,
  thread_state: true,
  pong: true,
};
