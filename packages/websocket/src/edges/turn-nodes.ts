import type { ServerFrameOf } from "@agentwire-chat/protocol";

/** One tool call of the turn's tree, at any depth, as the frames so far describe it. */
export interface TurnNode {
  id: string;
  parent_id: string | null;
  depth: number;
  /** The tool's name (`run_subtask` for a subtask). */
  name: string;
  title?: string;
  /** The call's arguments as its `start` gave them (none for an adopted node). */
  args?: unknown;
  status: "running" | "complete" | "error";
  /** Everything streamed with this node as `parent_id` (not its thinking). */
  text: string;
}

/**
 * The nodes of one turn's tree keyed by tool call id, kept from the native frames (pure bookkeeping,
 * no output): a call's `start` opens its node, the chunks whose `parent_id` it is add to its text, its
 * `end` sets its status. Each client-protocol edge reads these and writes its own protocol's events.
 */
export class TurnNodes {
  private readonly nodes = new Map<string, TurnNode>();

  /** How many nodes are known. */
  get size(): number {
    return this.nodes.size;
  }

  /** The node `id`, if its start (or a later frame of it) was seen. */
  get(id: string): TurnNode | undefined {
    return this.nodes.get(id);
  }

  /** The node `id` while its call runs (started, not ended). */
  running(id: string): TurnNode | undefined {
    const node = this.nodes.get(id);
    return node?.status === "running" ? node : undefined;
  }

  /** The latest started call of the tool `name` that still runs. */
  latestRunning(name: string): TurnNode | undefined {
    let found: TurnNode | undefined;
    for (const node of this.nodes.values()) if (node.status === "running" && node.name === name) found = node;
    return found;
  }

  /** Opens the node of a `start` frame, afresh (its text empty) if it was known. */
  start(frame: ServerFrameOf<"tool_call_update">): TurnNode {
    const id = frame.tool_call_id;
    // A call run again after a crash never ended: it keeps its place among the running calls, while
    // one that ended and starts again is the latest started.
    if (this.nodes.get(id)?.status !== "running") this.nodes.delete(id);
    const node: TurnNode = {
      id,
      parent_id: frame.parent_id,
      depth: frame.depth,
      name: frame.name,
      ...(frame.title !== undefined && { title: frame.title }),
      args: frame.args,
      status: "running",
      text: "",
    };
    this.nodes.set(id, node);
    return node;
  }

  /** Ends the node of an `end` frame; undefined when its start was not seen (and none was adopted). */
  end(frame: ServerFrameOf<"tool_call_update">): TurnNode | undefined {
    const node = this.nodes.get(frame.tool_call_id);
    if (node) node.status = frame.is_error === true ? "error" : "complete";
    return node;
  }

  /** Adds streamed text to the node it belongs to (a chunk's `parent_id`); undefined when that node is unknown. */
  appendText(id: string, content: string): TurnNode | undefined {
    const node = this.nodes.get(id);
    if (node) node.text += content;
    return node;
  }

  /** A node as an earlier response left it (its start and text are in no frame this projection sees). */
  restore(node: TurnNode): void {
    this.nodes.set(node.id, { ...node });
  }

  /**
   * A running node whose start this projection did not see (it started in an earlier response, before
   * an interrupt), made from what a later frame tells of it.
   */
  adopt(id: string, parentId: string | null, depth: number, name: string): TurnNode {
    const node: TurnNode = { id, parent_id: parentId, depth, name, status: "running", text: "" };
    this.nodes.set(id, node);
    return node;
  }
}
