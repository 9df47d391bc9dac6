import { type AGUIEvent, EventType, type Interrupt, type JsonPatchOperation } from "@ag-ui/core";
import {
  agentStateFromWire,
  preview,
  type ScratchpadItem,
  type ServerFrame,
  type ServerFrameOf,
} from "@agentwire-chat/protocol";
import { type TurnNode, TurnNodes } from "../turn-nodes.js";
import { approvalInterruptId, questionInterruptId } from "./interrupt-ids.js";

/** The activity type of a tree node's activity message: one per tool call of the turn's tree. */
export const NODE_ACTIVITY = "agentwire_node";

/** What an AG-UI run is, in its client's words. */
export interface AgUiRun {
  threadId: string;
  runId: string;
}

/**
 * One AG-UI run as a projection of the native turn frames it receives, in order: each frame gives the
 * AG-UI events it stands for. Pure (no socket, no database): the route feeds it and writes the
 * events; tests feed it recorded frames. The run ends at the turn's final `chunk {done}` (success,
 * cancelled or RUN_ERROR) or at `agent_state waiting_on_user` (RUN_FINISHED with the interrupts the
 * next run's `resume` answers); frames after the end give nothing.
 */
export class AgUiProjection {
  private openText: string | undefined;
  private lastText: string | undefined;
  private readonly nodes = new TurnNodes();
  private readonly openSteps = new Set<string>();
  private readonly interrupts: Interrupt[] = [];
  private scratchpad: ScratchpadItem[] = [];
  private failure: { code: string; message: string } | undefined;
  private stopped = false;
  private usage: { inputTokens: number; outputTokens: number } | undefined;
  private done = false;

  constructor(private readonly run: AgUiRun) {}

  /** True once the run's last event (RUN_FINISHED or RUN_ERROR) was given. */
  get ended(): boolean {
    return this.done;
  }

  /** RUN_STARTED and the scratchpad as the state the run starts from; `threadId` is agentwire's own thread id. */
  start(threadId: string, scratchpad: ScratchpadItem[]): AGUIEvent[] {
    this.scratchpad = [...scratchpad];
    return [
      {
        type: EventType.RUN_STARTED,
        threadId: this.run.threadId,
        runId: this.run.runId,
        metadata: { agentwire: { thread_id: threadId } },
      },
      { type: EventType.STATE_SNAPSHOT, snapshot: { scratchpad: this.scratchpad } },
    ];
  }

  /** A refusal before the run began (a bad or refused command): RUN_ERROR with its stable code. */
  refuse(code: string, message: string): AGUIEvent[] {
    this.done = true;
    return [{ type: EventType.RUN_ERROR, code, message }];
  }

  /** RUN_FINISHED cancelled: the run stopped the turn it was to continue. */
  cancel(): AGUIEvent[] {
    this.stopped = true;
    return this.finish();
  }

  /** The AG-UI events one native frame stands for. */
  push(frame: ServerFrame): AGUIEvent[] {
    if (this.done) return [];
    switch (frame.type) {
      case "chunk":
        return this.chunk(frame);
      case "message":
        // The model's text of one step is complete once its assistant row is stored.
        return frame.message.role === "assistant" ? this.closeText() : [];
      case "tool_call_update":
        return frame.status === "start" ? this.toolStart(frame) : this.toolEnd(frame);
      case "question":
        this.interrupts.push({
          id: questionInterruptId(frame.tool_call_id),
          reason: "agentwire:question",
          message: frame.question,
          toolCallId: frame.tool_call_id,
          responseSchema: { type: "string" },
        });
        return [];
      case "tool_approval_request":
        this.interrupts.push({
          id: approvalInterruptId(frame.approval_id),
          reason: "agentwire:tool_approval",
          message: `Allow ${frame.tool_name} (${frame.permission_class})?`,
          responseSchema: {
            type: "object",
            properties: { decision: { enum: ["allow", "allow_for_thread", "deny"] } },
            required: ["decision"],
          },
          metadata: {
            agentwire: {
              tool_name: frame.tool_name,
              permission_class: frame.permission_class,
              args: frame.args,
            },
          },
        });
        return [];
      case "agent_state":
        return agentStateFromWire(frame.state) === "waiting_user" && this.interrupts.length > 0
          ? this.suspend()
          : [];
      case "error":
        // Without a seq it answers the command itself: nothing runs, so the run ends now.
        if (frame.seq === undefined) return this.refuse(frame.code, frame.message);
        this.failure = { code: frame.code, message: frame.message };
        return [];
      case "budget_exceeded":
        this.failure = {
          code: "budget_exceeded",
          message: `budget exceeded: ${frame.reason} (limit ${frame.limit}, observed ${frame.observed})`,
        };
        return [];
      case "generation_stopped":
        this.stopped = true;
        return [];
      case "usage":
        this.usage = { inputTokens: frame.input_tokens, outputTokens: frame.output_tokens };
        return [];
      case "scratchpad_patch":
        return this.scratchpadPatch(frame);
      default:
        return [];
    }
  }

  private chunk(frame: ServerFrameOf<"chunk">): AGUIEvent[] {
    if (frame.done === true && frame.depth === 0) return this.finish();
    // Reasoning text is not part of the answer; AG-UI's reasoning events are left for later.
    if (frame.thinking === true || frame.content === "") return [];
    if (frame.parent_id !== null) {
      const events = this.ensureNode(frame.parent_id, frame.depth - 1);
      this.nodes.appendText(frame.parent_id, frame.content);
      // Appended, not the text so far replaced: a long subtask's deltas stay the size of its chunks.
      events.push(
        this.nodeDelta(frame.parent_id, [{ op: "add", path: "/text_parts/-", value: frame.content }]),
      );
      return events;
    }
    const events: AGUIEvent[] = [];
    if (this.openText === undefined) {
      // Unique on the thread: the first chunk's seq (frames from the log always carry one).
      this.openText = `${this.run.runId}:text:${frame.seq ?? this.nodes.size}`;
      this.lastText = this.openText;
      events.push({ type: EventType.TEXT_MESSAGE_START, messageId: this.openText, role: "assistant" });
    }
    events.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.openText, delta: frame.content });
    return events;
  }

  private toolStart(frame: ServerFrameOf<"tool_call_update">): AGUIEvent[] {
    const id = frame.tool_call_id;
    // A restart's marker (docs/protocol.md): the call and its step are open already; its node starts a new attempt.
    if (frame.attempt !== undefined && this.nodes.get(id))
      return [nodeSnapshot(this.nodes.start(frame), true)];
    const isSubtask = frame.name === "run_subtask";
    const events = frame.depth === 0 ? this.closeText() : [];
    if (frame.depth === 0) {
      events.push(
        {
          type: EventType.TOOL_CALL_START,
          toolCallId: id,
          toolCallName: frame.name,
          ...(this.lastText !== undefined && { parentMessageId: this.lastText }),
        },
        { type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: JSON.stringify(frame.args ?? {}) },
        { type: EventType.TOOL_CALL_END, toolCallId: id },
      );
    }
    events.push(nodeSnapshot(this.nodes.start(frame), true));
    if (isSubtask) {
      this.openSteps.add(id);
      events.push({ type: EventType.STEP_STARTED, stepName: stepName(id) });
    }
    return events;
  }

  private toolEnd(frame: ServerFrameOf<"tool_call_update">): AGUIEvent[] {
    const id = frame.tool_call_id;
    const events = this.ensureNode(id, frame.depth, frame.parent_id, frame.name);
    const { status, text } = this.nodes.end(frame) as TurnNode;
    events.push(
      this.nodeDelta(id, [
        { op: "replace", path: "/status", value: status === "error" ? "error" : "done" },
        { op: "add", path: "/result_preview", value: preview(frame.result) },
        // Once, at the end: the streamed parts joined into `text`.
        ...(text === ""
          ? []
          : ([
              { op: "replace", path: "/text", value: text },
              { op: "replace", path: "/text_parts", value: [] },
            ] as JsonPatchOperation[])),
      ]),
    );
    if (this.openSteps.delete(id)) events.push({ type: EventType.STEP_FINISHED, stepName: stepName(id) });
    if (frame.depth === 0) {
      events.push({
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${id}:result`,
        toolCallId: id,
        role: "tool",
        content: typeof frame.result === "string" ? frame.result : JSON.stringify(frame.result ?? null),
      });
    }
    return events;
  }

  /**
   * A node this run has not seen start (it started in an earlier run, before an interrupt): its
   * activity is created with what the frame tells, so deltas always have a message to change.
   */
  private ensureNode(
    id: string,
    depth: number,
    parentId: string | null = null,
    name = "unknown",
  ): AGUIEvent[] {
    if (this.nodes.get(id)) return [];
    return [nodeSnapshot(this.nodes.adopt(id, parentId, depth, name), false)];
  }

  private nodeDelta(id: string, patch: JsonPatchOperation[]): AGUIEvent {
    return {
      type: EventType.ACTIVITY_DELTA,
      messageId: nodeMessageId(id),
      activityType: NODE_ACTIVITY,
      patch,
    };
  }

  private scratchpadPatch(frame: ServerFrameOf<"scratchpad_patch">): AGUIEvent[] {
    const delta: JsonPatchOperation[] = [];
    if (frame.cleared === true) {
      this.scratchpad = [];
      delta.push({ op: "replace", path: "/scratchpad", value: [] });
    }
    for (const item of frame.items) {
      const at = this.scratchpad.findIndex((i) => i.id === item.id);
      if (at === -1) {
        this.scratchpad.push(item);
        delta.push({ op: "add", path: "/scratchpad/-", value: item });
      } else {
        this.scratchpad[at] = item;
        delta.push({ op: "replace", path: `/scratchpad/${at}`, value: item });
      }
    }
    return delta.length > 0 ? [{ type: EventType.STATE_DELTA, delta }] : [];
  }

  private closeText(): AGUIEvent[] {
    if (this.openText === undefined) return [];
    const messageId = this.openText;
    this.openText = undefined;
    return [{ type: EventType.TEXT_MESSAGE_END, messageId }];
  }

  /** AG-UI allows no step open at the run's end: a subtask still running is closed here (its node says so). */
  private closeSteps(): AGUIEvent[] {
    const events: AGUIEvent[] = [...this.openSteps].map((id) => ({
      type: EventType.STEP_FINISHED,
      stepName: stepName(id),
    }));
    this.openSteps.clear();
    return events;
  }

  private suspend(): AGUIEvent[] {
    this.done = true;
    return [
      ...this.closeText(),
      ...this.closeSteps(),
      {
        type: EventType.RUN_FINISHED,
        threadId: this.run.threadId,
        runId: this.run.runId,
        outcome: { type: "interrupt", interrupts: [...this.interrupts] },
      },
    ];
  }

  private finish(): AGUIEvent[] {
    this.done = true;
    const events = [...this.closeText(), ...this.closeSteps()];
    const usage = this.usage && [
      { ...this.usage, totalTokens: this.usage.inputTokens + this.usage.outputTokens },
    ];
    if (this.failure) {
      events.push({ type: EventType.RUN_ERROR, ...this.failure, ...(usage && { usage }) });
      return events;
    }
    events.push({
      type: EventType.RUN_FINISHED,
      threadId: this.run.threadId,
      runId: this.run.runId,
      outcome: this.stopped ? { type: "cancelled" } : { type: "success" },
      ...(usage && { usage }),
    });
    return events;
  }
}

/**
 * A node's activity message as it starts. One this run saw start carries its arguments' preview; an
 * adopted one only creates a fresh message: an existing one (from the run the node started in) keeps
 * its content.
 */
function nodeSnapshot(node: TurnNode, started: boolean): AGUIEvent {
  return {
    type: EventType.ACTIVITY_SNAPSHOT,
    messageId: nodeMessageId(node.id),
    activityType: NODE_ACTIVITY,
    ...(!started && { replace: false }),
    content: {
      id: node.id,
      parent_id: node.parent_id,
      depth: node.depth,
      name: node.name,
      title: node.title ?? node.name,
      status: "running",
      ...(started && { args_preview: preview(node.args) }),
      text: "",
      text_parts: [],
    },
  };
}

function nodeMessageId(toolCallId: string): string {
  return `node:${toolCallId}`;
}

function stepName(toolCallId: string): string {
  return `subtask:${toolCallId}`;
}
