import { z } from "zod";
import { defineTool } from "./define-tool.js";

export const ASK_USER = "ask_user";

/** Asks the user a question: the turn suspends until the answer comes back as this call's result. */
export const askUserTool = defineTool({
  name: ASK_USER,
  description:
    "Ask the user a question when you cannot go on without their answer. The work pauses until they reply.",
  args: z.object({
    question: z.string().min(1).max(4000).describe("The question, in one or two sentences."),
  }),
  permissionClass: "safe",
  parallelSafe: false,
  execute: async ({ question }) => ({ type: "suspend", suspension: { kind: "question", question } }),
});
