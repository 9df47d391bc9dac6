import { z } from "zod";
import { defineTool, toolError } from "../tools/define-tool.js";

export const RUN_SUBTASK = "run_subtask";

export const RunSubtaskArgs = z.object({
  title: z.string().min(1).max(200).describe("A short title for the subtask, shown to the user."),
  instructions: z
    .string()
    .min(1)
    .describe("Everything the subtask needs to know: it sees none of this conversation."),
  tools: z
    .array(z.string())
    .optional()
    .describe("Names of your tools the subtask may use; default: all of them."),
  output_schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("A JSON Schema the subtask's result must match; it then returns validated JSON."),
});
export type RunSubtaskArgs = z.infer<typeof RunSubtaskArgs>;

/**
 * Delegates a self-contained piece of work to a subtask with its own conversation. The agent loop
 * runs it (it needs the depth, the budget and the event stream); `execute` only answers a caller
 * that runs the tool outside the loop.
 */
export const runSubtaskTool = defineTool({
  name: RUN_SUBTASK,
  description:
    "Run a subtask: a separate agent with a fresh conversation works on the instructions and returns " +
    "its answer. Use it for independent pieces of a larger job; call it several times at once to run " +
    "them in parallel.",
  args: RunSubtaskArgs,
  permissionClass: "subagent",
  parallelSafe: true,
  execute: async () => toolError("run_subtask can only run inside the agent loop"),
});
