import type { Tool, ToolOutcome } from "../../src/tools/tool.js";

/** Validates and runs a tool the way the loop does, returning its outcome. */
export async function runTool(tool: Tool, args: unknown, signal?: AbortSignal): Promise<ToolOutcome> {
  const checked = tool.validate(args);
  if (!checked.ok) return { type: "result", output: checked.message, isError: true };
  return tool.execute(checked.value, {
    toolCallId: "call_1",
    depth: 0,
    parentId: null,
    signal: signal ?? new AbortController().signal,
  });
}

/** The tool named `name` in a list; fails the test when missing. */
export function toolNamed(tools: readonly Tool[], name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in [${tools.map((t) => t.name).join(", ")}]`);
  return tool;
}

/** The error text of an outcome, or a failure message naming what came back instead. */
export function errorText(outcome: ToolOutcome): string {
  if (outcome.type !== "result" || outcome.isError !== true) {
    throw new Error(`expected an error result, got ${JSON.stringify(outcome).slice(0, 300)}`);
  }
  return String(outcome.output);
}

/** The output of a successful result. */
export function okOutput<T = Record<string, unknown>>(outcome: ToolOutcome): T {
  if (outcome.type !== "result" || outcome.isError === true) {
    throw new Error(`expected a successful result, got ${JSON.stringify(outcome).slice(0, 300)}`);
  }
  return outcome.output as T;
}
