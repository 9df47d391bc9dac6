import { type NodeType, nodeError, nodeOk } from "../node-type.js";
import { followJsonPath, parseJsonPath } from "./json-path.js";

/** `json.extract`: the value at a path (e.g. `items[0].name`) inside JSON or a JSON string. */
export const jsonExtractNode: NodeType = {
  type: "json.extract",
  description:
    "Extracts the value at a path such as `items[0].name` from JSON (an object, array, or a string holding JSON).",
  inputs: [
    { name: "json", schema: {}, description: "the JSON value, or a string holding JSON" },
    { name: "path", schema: { type: "string" }, description: "dot/bracket path, e.g. data.items[0].title" },
  ],
  outputs: [{ name: "value", schema: {}, description: "the extracted value" }],
  process: async (inputs) => {
    const path = inputs.path;
    if (typeof path !== "string") return nodeError('input "path" must be a string');
    const segments = parseJsonPath(path);
    if (!segments) return nodeError(`malformed path "${path}"`);
    let doc = inputs.json;
    if (typeof doc === "string") {
      try {
        doc = JSON.parse(doc);
      } catch (err) {
        return nodeError(`input "json" is not valid JSON: ${(err as Error).message}`);
      }
    }
    const found = followJsonPath(doc, segments);
    return found.ok ? nodeOk({ value: found.value }) : nodeError(found.error);
  },
};
