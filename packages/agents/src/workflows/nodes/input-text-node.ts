import { type NodeType, nodeOk } from "../node-type.js";

/** `input.text`: the chat message that started the run. */
export const inputTextNode: NodeType = {
  type: "input.text",
  description: "The user's chat message that started the workflow, as text.",
  inputs: [],
  outputs: [{ name: "text", schema: { type: "string" }, description: "the chat message" }],
  process: async (_inputs, ctx) => nodeOk({ text: ctx.input.text }),
};
