import type { NodeContext, NodeResult, NodeType } from "./node-type.js";

/** How one node invocation ended: its result, or aborted before it produced one. */
export type NodeSettlement = { kind: "result"; result: NodeResult } | { kind: "aborted" };

/**
 * Runs one node, racing it against `signal` so a node that ignores its signal cannot hold the job
 * open after a stop, a wall-clock timeout or a failing sibling. A throw is a bug in the node (often
 * a plugin); it becomes a failed result rather than taking the runner down.
 */
export async function invokeNode(
  node: NodeType,
  inputs: Record<string, unknown>,
  ctx: NodeContext,
  signal: AbortSignal,
): Promise<NodeSettlement> {
  if (signal.aborted) return { kind: "aborted" };
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<NodeSettlement>((resolve) => {
    onAbort = () => resolve({ kind: "aborted" });
    signal.addEventListener("abort", onAbort, { once: true });
  });
  const run = (async (): Promise<NodeSettlement> => {
    try {
      return { kind: "result", result: await node.process(inputs, ctx, signal) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { kind: "result", result: { ok: false, error: `${node.type} threw: ${message}` } };
    }
  })();
  try {
    return await Promise.race([run, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
