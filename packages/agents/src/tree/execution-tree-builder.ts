import { type ExecutionTreeNode, type ExecutionTreeSnapshot, preview } from "@agentwire/protocol";
import type { LoopEvent } from "../turn/loop-event.js";

/**
 * Builds the stored tool-call tree of a turn from the loop's events: one node per tool call at any
 * depth, in start order. A call still open at snapshot time gets its duration so far.
 */
export class ExecutionTreeBuilder {
  private readonly nodes = new Map<string, ExecutionTreeNode>();
  private readonly startedAt = new Map<string, number>();
  private readonly now: () => number;

  /** `from` continues a tree stored when the turn was suspended. */
  constructor(options: { from?: ExecutionTreeSnapshot; now?: () => number } = {}) {
    this.now = options.now ?? (() => performance.now());
    for (const node of options.from?.nodes ?? []) this.nodes.set(node.id, { ...node });
  }

  /** Takes one event; anything but `tool_call_update` is ignored. */
  add(event: LoopEvent): void {
    if (event.type !== "tool_call_update") return;
    const id = event.tool_call_id;
    let node = this.nodes.get(id);
    if (!node) {
      node = { id, parent_id: event.parent_id, name: event.name, duration_ms: 0 };
      this.nodes.set(id, node);
    }
    if (event.title !== undefined) node.title = event.title;
    if (event.args !== undefined) node.args_preview = preview(event.args);
    if (event.status === "start") {
      this.startedAt.set(id, this.now());
      return;
    }
    const started = this.startedAt.get(id);
    this.startedAt.delete(id);
    if (event.result !== undefined) node.result_preview = preview(event.result);
    if (event.is_error) node.is_error = true;
    else delete node.is_error;
    node.duration_ms =
      event.duration_ms ?? (started === undefined ? node.duration_ms : Math.max(0, this.now() - started));
  }

  /** The tree as stored with the final message. */
  snapshot(): ExecutionTreeSnapshot {
    const at = this.now();
    const nodes = [...this.nodes.values()].map((node) => {
      const started = this.startedAt.get(node.id);
      return started === undefined ? { ...node } : { ...node, duration_ms: Math.max(0, at - started) };
    });
    return { version: 1, nodes };
  }
}

/** The tree of a complete list of events. */
export function buildExecutionTree(events: Iterable<LoopEvent>, now?: () => number): ExecutionTreeSnapshot {
  const builder = new ExecutionTreeBuilder(now ? { now } : {});
  for (const event of events) builder.add(event);
  return builder.snapshot();
}
