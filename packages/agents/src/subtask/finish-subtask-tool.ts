import { toolError } from "../tools/define-tool.js";
import type { Tool } from "../tools/tool.js";

export const FINISH_SUBTASK = "finish_subtask";

/**
 * The tool a subtask with an output schema ends with; its `result` must match the schema. The loop
 * intercepts it and validates with ajv, so the parent only ever sees valid JSON.
 */
export function finishSubtaskTool(outputSchema: Record<string, unknown>): Tool<{ result: unknown }> {
  return {
    name: FINISH_SUBTASK,
    description:
      "Finish this subtask with its result. The result must match the required schema; if it does not, " +
      "you get the errors and can call this again.",
    inputSchema: {
      type: "object",
      properties: { result: outputSchema },
      required: ["result"],
      additionalProperties: false,
    },
    permissionClass: "safe",
    parallelSafe: true,
    validate(args) {
      if (typeof args === "object" && args !== null && Object.hasOwn(args, "result")) {
        return { ok: true, value: args as { result: unknown } };
      }
      return { ok: false, message: "invalid arguments for finish_subtask: (args): result is required" };
    },
    execute: async () => toolError("finish_subtask can only run inside the agent loop"),
  };
}
