import { toolError } from "../../define-tool.js";
import type { ToolOutcome } from "../../tool.js";
import { parseWorkspacePath } from "./confine-path.js";
import { describeFsError } from "./verified-fs.js";

/**
 * Parses a model-supplied workspace path, runs the body with its components and the form shown back
 * to the model, and turns any filesystem failure into an error result without host paths.
 */
export async function guarded(
  input: string,
  body: (comps: string[], shown: string) => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const parsed = parseWorkspacePath(input);
  if (!parsed.ok) return toolError(parsed.reason);
  const shown = parsed.value.length === 0 ? "." : parsed.value.join("/");
  try {
    return await body(parsed.value, shown);
  } catch (err) {
    return toolError(describeFsError(err, shown));
  }
}
