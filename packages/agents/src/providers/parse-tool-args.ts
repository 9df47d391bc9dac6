import type { ToolCallEvent } from "./provider-event.js";

/** Builds a tool-call event from the raw argument text the model streamed; bad JSON becomes `invalidArgs`. */
export function toolCallFromRawArgs(id: string, name: string, raw: string): ToolCallEvent {
  // Models call argument-less tools with "" as often as with "{}".
  if (raw.trim() === "") return { type: "tool-call", id, name, args: {} };
  try {
    return { type: "tool-call", id, name, args: JSON.parse(raw) as unknown };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      type: "tool-call",
      id,
      name,
      args: undefined,
      invalidArgs: { raw, message: `the arguments are not valid JSON (${reason})` },
    };
  }
}
