import type { ModelMessage, ModelToolCall, ToolModelMessage } from "./model-message.js";

/** A history step after pairing: a plain message, or an assistant turn followed by one result per call. */
export type PairedStep =
  | { kind: "message"; message: Exclude<ModelMessage, ToolModelMessage> }
  | { kind: "tool-results"; results: ToolModelMessage[] };

const MISSING_RESULT = "No result: the call was interrupted before it finished.";

/**
 * Puts every tool result right after the assistant turn that made its call, in call order. Both APIs
 * reject a call without a result and a result without a call, so a missing result is filled in
 * (as an error) and an orphaned result is dropped.
 */
export function pairToolResults(messages: readonly ModelMessage[]): PairedStep[] {
  const steps: PairedStep[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    i++;
    if (message.role === "tool") continue; // orphan: no assistant call precedes it
    steps.push({ kind: "message", message });
    const calls = message.role === "assistant" ? (message.toolCalls ?? []) : [];
    if (calls.length === 0) continue;
    const found = new Map<string, ToolModelMessage>();
    while (i < messages.length && messages[i]!.role === "tool") {
      const result = messages[i] as ToolModelMessage;
      if (!found.has(result.toolCallId)) found.set(result.toolCallId, result);
      i++;
    }
    steps.push({ kind: "tool-results", results: calls.map((call) => found.get(call.id) ?? missing(call)) });
  }
  return steps;
}

function missing(call: ModelToolCall): ToolModelMessage {
  return { role: "tool", toolCallId: call.id, name: call.name, content: MISSING_RESULT, isError: true };
}
