import { type NodeType, nodeError, nodeOk } from "../node-type.js";
import { outputText } from "../output-text.js";
import { followJsonPath, parseJsonPath } from "./json-path.js";

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** `text.template`: fills `{{text}}`, `{{data}}` and `{{data.path}}` placeholders in a template. */
export const textTemplateNode: NodeType = {
  type: "text.template",
  description:
    "Fills a template: {{text}} is replaced by the text input, {{data}} by the data input and {{data.some.path}} by a value inside it. Usually the template is a property.",
  inputs: [
    { name: "template", schema: { type: "string" }, description: "the template text" },
    { name: "text", schema: { type: "string" }, optional: true },
    { name: "data", schema: {}, optional: true, description: "any JSON value" },
  ],
  outputs: [{ name: "text", schema: { type: "string" } }],
  process: async (inputs) => {
    const template = inputs.template;
    if (typeof template !== "string") return nodeError('input "template" must be a string');
    const missing: string[] = [];
    const text = template.replace(PLACEHOLDER, (whole, expr: string) => {
      const value = resolve(expr, inputs);
      if (value === undefined) {
        missing.push(whole);
        return whole;
      }
      return outputText(value);
    });
    if (missing.length > 0) return nodeError(`no value for ${[...new Set(missing)].join(", ")}`);
    return nodeOk({ text });
  },
};

function resolve(expr: string, inputs: Record<string, unknown>): unknown {
  if (expr === "text") return inputs.text;
  if (expr === "data") return inputs.data;
  if (!expr.startsWith("data.") && !expr.startsWith("data[")) return undefined;
  const segments = parseJsonPath(expr.slice(4));
  if (!segments) return undefined;
  const found = followJsonPath(inputs.data, segments);
  return found.ok ? found.value : undefined;
}
