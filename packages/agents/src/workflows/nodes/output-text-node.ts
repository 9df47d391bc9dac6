import { type NodeType, nodeError, nodeOk } from "../node-type.js";

/** `output.text`: marks a text as the workflow's answer (stored as the assistant message). */
export const outputTextNode: NodeType = {
  type: "output.text",
  description: "The workflow's answer: its text becomes the reply shown to the user.",
  inputs: [{ name: "text", schema: { type: "string" }, description: "the answer text" }],
  outputs: [{ name: "text", schema: { type: "string" } }],
  process: async (inputs) => {
    const text = inputs.text;
    if (typeof text !== "string") return nodeError(`input "text" must be a string, got ${typeof text}`);
    return nodeOk({ text });
  },
};
