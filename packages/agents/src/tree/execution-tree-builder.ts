import { type ExecutionTreeNode, type ExecutionTreeSnapshot, preview } from "@agentwire-chat/protocol";
import { isCutShort } from "../turn/call-outcome.js";
import type { LoopEvent } from "../turn/loop-event.js";

/**
 * Builds the stored tool-call tree of a turn from the loop's events: one node per tool call at any
 * depth, in start order. A call still open at snapshot time gets its duration so far. Once the turn
 * is interrupted, a call it cut short is stored `interrupted` with the text its level streamed; a
 * call Stop or the budget cut short keeps that text as well. A subtask a restart cut mid-stream keeps
 * that attempt's text in its `attempts`.
 */
export class ExecutionTreeBuilder {
  private readonly nodes = new Map<string, ExecutionTreeNode>();
  private readonly startedAt = new Map<string, number>();
  /** Text streamed inside each container call, kept until it ends by itself (then its result holds it). */
  private readonly texts = new Map<string, string>();
  /** The part of each container's text streamed since its last nested call: what a restart cuts. */
  private readonly tails = new Map<string, string>();
  private readonly now: () => number;
  private interruptedAt: number | undefined;

  /** `from` continues a tree stored when the turn was suspended. */
  constructor(options: { from?: ExecutionTreeSnapshot; now?: () => number } = {}) {
    this.now = options.now ?? (() => performance.now());
    const at = this.now();
    for (const { text, ...node } of options.from?.nodes ?? []) {
      this.nodes.set(node.id, node);
      if (text !== undefined) this.texts.set(node.id, text);
      // Every end carries a result or an error: a node with neither was still open (the call that asked).
      if (node.result_preview === undefined && !node.is_error)
        this.startedAt.set(node.id, at - node.duration_ms);
    }
  }

  /**
   * Takes one event; only tool calls and the text streamed inside them count. `when` it
   * happened (a frame's log time when rebuilding a turn), on the clock of `now`; default now.
   */
  add(event: LoopEvent, when?: number): void {
    if (event.type === "chunk") {
      if (event.parent_id !== null && !event.thinking && event.content !== "") {
        this.texts.set(event.parent_id, (this.texts.get(event.parent_id) ?? "") + event.content);
        this.tails.set(event.parent_id, (this.tails.get(event.parent_id) ?? "") + event.content);
      }
      return;
    }
    if (event.type !== "tool_call_update") return;
    // Read only here: the clock is not worth a call per streamed chunk.
    const at = when ?? this.now();
    const id = event.tool_call_id;
    let node = this.nodes.get(id);
    if (node && event.status === "start" && event.attempt !== undefined) {
      this.cutAttempt(node);
      return;
    }
    if (event.parent_id !== null) this.tails.delete(event.parent_id);
    if (!node) {
      node = { id, parent_id: event.parent_id, name: event.name, duration_ms: 0 };
      this.nodes.set(id, node);
    }
    if (event.title !== undefined) node.title = event.title;
    if (event.args !== undefined) node.args_preview = preview(event.args);
    if (event.status === "start") {
      this.startedAt.set(id, at);
      return;
    }
    const started = this.startedAt.get(id);
    this.startedAt.delete(id);
    if (event.result !== undefined) node.result_preview = preview(event.result);
    if (event.is_error) node.is_error = true;
    else delete node.is_error;
    node.duration_ms =
      event.duration_ms ?? (started === undefined ? node.duration_ms : Math.max(0, at - started));
    // Its own end wins over an orphan's close (closeOrphans).
    delete node.status;
    // A call the interruption cancelled ends with an error; one that finished by itself keeps its result.
    if (this.interruptedAt !== undefined && event.is_error) node.status = "interrupted";
    // One that Stop or the budget cut short keeps its text too: it is the answer so far.
    else if (!(event.is_error && isCutShort(event.result))) this.texts.delete(id);
    this.tails.delete(id);
    this.closeOrphans(id, at);
  }

  /**
   * A restart cut the subtask mid-stream and it goes on as a new attempt (an `attempt` start): the
   * text since its last nested call becomes an interrupted attempt, no longer part of its text.
   */
  private cutAttempt(node: ExecutionTreeNode): void {
    const tail = this.tails.get(node.id) ?? "";
    const text = this.texts.get(node.id) ?? "";
    this.tails.delete(node.id);
    if (text.length > tail.length) this.texts.set(node.id, text.slice(0, text.length - tail.length));
    else this.texts.delete(node.id);
    let calls = 0;
    for (const other of this.nodes.values()) if (other.parent_id === node.id) calls += 1;
    node.attempts = [...(node.attempts ?? []), { status: "interrupted", text: tail, after_calls: calls }];
  }

  /**
   * A call never ends before the calls inside it, except when a crash cut them and the call ended
   * after the restart without them (its result the restart error): they were interrupted at the
   * crash, and keep the text they streamed.
   */
  private closeOrphans(endedId: string, at: number): void {
    for (const [id, started] of this.startedAt) {
      if (!this.isInside(id, endedId)) continue;
      const node = this.nodes.get(id) as ExecutionTreeNode;
      this.startedAt.delete(id);
      Object.assign(node, { is_error: true, status: "interrupted" });
      node.duration_ms = Math.max(0, at - started);
    }
  }

  private isInside(id: string, ancestorId: string): boolean {
    for (let p = this.nodes.get(id)?.parent_id; p != null; p = this.nodes.get(p)?.parent_id) {
      if (p === ancestorId) return true;
    }
    return false;
  }

  /**
   * The turn is being interrupted (shutdown, lost lease) or was (a crash, `at` its last logged
   * frame): calls open then, or ending later with an error, are stored `interrupted`, and an open
   * call's duration runs to `at`. Call it before the cancelled calls' ends arrive.
   */
  interrupt(at: number = this.now()): void {
    this.interruptedAt ??= at;
  }

  /** The tree as stored with the final message; an open call has its duration so far (or to `interrupt`). */
  snapshot(): ExecutionTreeSnapshot {
    const interrupted = this.interruptedAt !== undefined;
    const at = this.interruptedAt ?? this.now();
    const nodes = [...this.nodes.values()].map((node) => {
      const started = this.startedAt.get(node.id);
      const text = this.texts.get(node.id);
      const out: ExecutionTreeNode = { ...node };
      if (started !== undefined) {
        out.duration_ms = Math.max(0, at - started);
        if (interrupted) Object.assign(out, { is_error: true, status: "interrupted" });
      }
      // Open calls keep their text too: a suspended turn's tree carries it into the resumed one. A
      // text left after a call's end is an interrupted or cut-short call's (see `add`).
      if (text !== undefined) out.text = text;
      return out;
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
