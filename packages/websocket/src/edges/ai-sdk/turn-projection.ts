import type { ServerFrame, ServerFrameOf, TurnStatus } from "@agentwire-chat/protocol";
import { type TurnNode, TurnNodes } from "../turn-nodes.js";
import type { AgentwireMetadata, AgentwireNode, FinishReason, UiChunk } from "./ui-chunks.js";

/** What one native frame became: its chunks, and whether the turn ended or now waits on the user. */
export interface Projected {
  chunks: UiChunk[];
  /** The turn's one `done`: the response is complete (`finish` is among the chunks). */
  done: boolean;
  /** A `question` or `tool_approval_request`: the client must act; `close()` ends the response. */
  waiting: boolean;
}

const FINISH_REASONS: Record<TurnStatus, FinishReason> = {
  running: "other",
  waiting_user: "tool-calls",
  complete: "stop",
  stopped: "other",
  budget_exceeded: "length",
  iteration_limit: "length",
  error: "error",
  interrupted: "interrupted",
};

/**
 * The AI SDK's view of one native turn, built frame by frame (pure: no socket, no storage): root text
 * and thinking as text and reasoning parts, each root tool call as a dynamic tool part, every call at
 * every depth (subtasks and their text) as a `data-agentwire-node` part keyed by its id, questions and
 * approvals as tool parts the client answers, usage and the turn's end as message metadata. A replay of
 * the same frames gives the same chunks, ids included, so a resumed response replaces the partial one.
 */
export class TurnProjection {
  private messageId: string | undefined;
  private started = false;
  private stepOpen = false;
  private stepCalledTools = false;
  private text: { id: string; reasoning: boolean } | undefined;
  /** Every call at every depth: each becomes a `data-agentwire-node` part. */
  private readonly nodes = new TurnNodes();
  /** Calls shown as tool parts: the root's, and any nested one the user must answer. */
  private readonly toolParts = new Set<string>();
  private readonly metadata: AgentwireMetadata = {};

  /**
   * A continued response (after an answer) goes on the client's assistant message `messageId`, whose
   * tool parts (`toolCallIds`) and tree nodes (`nodes`, with the text streamed so far) already exist;
   * a new or replayed one names its message after the turn.
   */
  constructor(messageId?: string, toolCallIds: Iterable<string> = [], nodes: Iterable<AgentwireNode> = []) {
    this.messageId = messageId;
    for (const id of toolCallIds) this.toolParts.add(id);
    for (const node of nodes) this.nodes.restore(node);
  }

  /** The chunks for one native frame of the turn. */
  push(frame: ServerFrame): Projected {
    const out: UiChunk[] = [];
    let done = false;
    let waiting = false;
    switch (frame.type) {
      case "message":
        this.onMessage(frame, out);
        break;
      case "turn_started":
        // A regenerated turn stores no user message: this names the message it answers again.
        this.messageId ??= `aw-${frame.user_message_id}`;
        this.begin(out);
        break;
      case "chunk":
        if (frame.done) {
          this.finish(out);
          done = true;
        } else if (frame.depth === 0) this.onRootText(frame, out);
        else if (!frame.thinking && frame.parent_id !== null)
          this.onNodeText(frame.parent_id, frame.content, out);
        break;
      case "tool_call_update":
        this.onToolCall(frame, out);
        break;
      case "question":
        this.ensureToolPart(frame.tool_call_id, "ask_user", { question: frame.question }, out);
        this.metadata.status = "waiting_user";
        waiting = true;
        break;
      case "tool_approval_request": {
        // The gated call is the latest started call of that tool.
        const callId = this.nodes.latestRunning(frame.tool_name)?.id ?? frame.approval_id;
        this.begin(out);
        this.ensureToolPart(callId, frame.tool_name, frame.args, out);
        out.push({ type: "tool-approval-request", approvalId: frame.approval_id, toolCallId: callId });
        this.metadata.status = "waiting_user";
        waiting = true;
        break;
      }
      case "budget_exceeded":
        this.metadata.budget_exceeded = {
          reason: frame.reason,
          limit: frame.limit,
          observed: frame.observed,
        };
        break;
      case "error":
        this.begin(out);
        this.metadata.error = { code: frame.code, message: frame.message };
        out.push({ type: "error", errorText: `${frame.code}: ${frame.message}` });
        break;
      case "usage": {
        const { type: _type, thread_id: _thread, seq: _seq, ...usage } = frame;
        this.metadata.usage = usage;
        if (this.started) out.push({ type: "message-metadata", messageMetadata: this.meta() });
        break;
      }
      case "generation_stopped":
        this.metadata.status = "stopped";
        break;
      case "agent_state":
        if (this.started)
          out.push({
            type: "data-agentwire-state",
            data: { state: frame.state, ...(frame.detail !== undefined && { detail: frame.detail }) },
            transient: true,
          });
        break;
    }
    return { chunks: out, done, waiting };
  }

  /** Ends a response that stops short of the turn's end (it waits on the user): closes parts, `finish`. */
  close(): UiChunk[] {
    const out: UiChunk[] = [];
    this.finish(out);
    return out;
  }

  private onMessage(frame: ServerFrameOf<"message">, out: UiChunk[]): void {
    const { message } = frame;
    if (message.role === "user") {
      // The turn's own user message: the assistant message is named after it, the same on every replay.
      this.messageId ??= `aw-${message.id}`;
      this.begin(out);
      return;
    }
    if (message.role !== "assistant") return;
    this.metadata.status = message.status;
    this.endText(out);
    // A model call's step holds its text and its tool calls; it ends when the next call streams.
    if (message.tool_calls?.length) this.stepCalledTools = true;
    else this.endStep(out);
  }

  private onRootText(frame: ServerFrameOf<"chunk">, out: UiChunk[]): void {
    if (frame.content === "") return;
    const reasoning = frame.thinking === true;
    if (this.text && this.text.reasoning !== reasoning) this.endText(out);
    if (this.stepCalledTools) this.endStep(out);
    this.step(out);
    if (!this.text) {
      // Named after the frame that opened it: stable across replays, unique within the thread.
      const id = `${reasoning ? "r" : "t"}-${frame.seq_start ?? frame.seq ?? 0}`;
      this.text = { id, reasoning };
      out.push({ type: reasoning ? "reasoning-start" : "text-start", id });
    }
    out.push({ type: reasoning ? "reasoning-delta" : "text-delta", id: this.text.id, delta: frame.content });
  }

  private onNodeText(nodeId: string, content: string, out: UiChunk[]): void {
    if (content === "") return;
    const node = this.nodes.appendText(nodeId, content);
    if (node) this.pushNode(node, out);
  }

  private onToolCall(frame: ServerFrameOf<"tool_call_update">, out: UiChunk[]): void {
    const id = frame.tool_call_id;
    if (frame.status === "start") {
      const node = this.nodes.start(frame);
      if (frame.depth === 0) this.ensureToolPart(id, frame.name, frame.args, out, frame.title);
      this.pushNode(node, out);
      return;
    }
    // A call that started in an earlier response (the question that continued it) ends here too.
    if (!this.nodes.get(id)) this.nodes.adopt(id, frame.parent_id, frame.depth, frame.name);
    this.pushNode(this.nodes.end(frame) as TurnNode, out);
    if (!this.toolParts.has(id)) return;
    this.endText(out);
    if (frame.is_error) {
      const errorText =
        typeof frame.result === "string" ? frame.result : JSON.stringify(frame.result ?? "failed");
      out.push({ type: "tool-output-error", toolCallId: id, errorText, dynamic: true });
    } else {
      out.push({
        type: "tool-output-available",
        toolCallId: id,
        output: frame.result ?? null,
        dynamic: true,
      });
    }
  }

  private ensureToolPart(id: string, name: string, input: unknown, out: UiChunk[], title?: string): void {
    if (this.toolParts.has(id)) return;
    this.toolParts.add(id);
    this.endText(out);
    const call = this.nodes.running(id);
    // A question or approval inside a subtask gets a step of its own: the AI SDK's
    // `lastAssistantMessageIsComplete…` helpers read the last step's tool parts only, and the
    // enclosing run_subtask's part, still running, would keep the answer from being sent.
    if ((call?.depth ?? 0) > 0) this.endStep(out);
    this.step(out);
    out.push({
      type: "tool-input-available",
      toolCallId: id,
      toolName: call?.name ?? name,
      input: call?.args ?? input ?? {},
      dynamic: true,
      ...(title !== undefined && { title }),
    });
  }

  private pushNode(node: TurnNode, out: UiChunk[]): void {
    this.begin(out);
    const { id, parent_id, depth, name, title, status, text } = node;
    out.push({
      type: "data-agentwire-node",
      id,
      // The node as it is now (not its arguments): a later change must not alter a chunk already given.
      data: { id, parent_id, depth, name, ...(title !== undefined && { title }), status, text },
    });
  }

  private begin(out: UiChunk[]): void {
    if (this.started) return;
    this.started = true;
    out.push({ type: "start", messageId: this.messageId ?? "aw-turn" });
  }

  private step(out: UiChunk[]): void {
    this.begin(out);
    if (this.stepOpen) return;
    this.stepOpen = true;
    out.push({ type: "start-step" });
  }

  private endStep(out: UiChunk[]): void {
    this.stepCalledTools = false;
    if (!this.stepOpen) return;
    this.stepOpen = false;
    out.push({ type: "finish-step" });
  }

  private endText(out: UiChunk[]): void {
    if (!this.text) return;
    out.push({ type: this.text.reasoning ? "reasoning-end" : "text-end", id: this.text.id });
    this.text = undefined;
  }

  private finish(out: UiChunk[]): void {
    this.begin(out);
    this.endText(out);
    this.endStep(out);
    const status = this.metadata.status ?? "complete";
    out.push({ type: "finish", finishReason: FINISH_REASONS[status], messageMetadata: this.meta() });
  }

  private meta(): { agentwire: AgentwireMetadata } {
    return { agentwire: { ...this.metadata } };
  }
}
