import type { LlmOperation } from "@agentwire-chat/protocol";
import type { ModelMessage } from "../providers/model-message.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { PermissionClass } from "../turn/permission-class.js";
import type { SuspendedState } from "../turn/suspended-state.js";
import type { Suspension } from "../turn/suspension.js";

/**
 * What a tool returns: a result for the model (possibly an error), or a suspension of the turn. A tool
 * whose nested subtask waits on the user suspends with `resume`: its own progress (plain JSON) and the
 * pending subtask; on the answer, the subtask runs on and the tool's `resume` continues from `state`.
 */
export type ToolOutcome =
  | { type: "result"; output: unknown; isError?: boolean }
  | { type: "suspend"; suspension: Suspension; resume?: { state: unknown; pending: PendingSubtask } };

/** Argument validation result: the parsed value, or a message the model can act on. */
export type ArgsCheck<A> = { ok: true; value: A } | { ok: false; message: string };

/** One model call a tool asks of the loop (create_plan's planner): no tools, the turn's provider and model. */
export type ModelCallRequest = {
  systemPrompt: string;
  messages: ModelMessage[];
  /** What the call is for, in the ledger: `planner`, `plan_review`, `workflow_planner`. */
  operation: LlmOperation;
};

/** The answer's text, or why there is none (a provider error, the stop, the budget). */
export type ModelCallResult = { ok: true; text: string } | { ok: false; error: string };

/** A subtask a tool asks the loop to run under a node of its own (a plan step), nested under the tool's call. */
export type NestedSubtask = {
  /** The id of the step's own `tool_call_update` node; unique in the turn. */
  id: string;
  /** The node's name, e.g. "plan_step". */
  name: string;
  title: string;
  instructions: string;
  /** Names from the caller's toolbelt the subtask may use; default: all of them. */
  tools?: string[];
  /** Shown as the node's `args`. */
  args?: unknown;
  /** What the subtask's own model calls are for in the ledger; default `subtask`. */
  operation?: LlmOperation;
};

/**
 * A nested subtask that waits on the user: hand it back in a `suspend` outcome's `resume`. Opaque to
 * the tool; plain JSON (its node and the suspended levels below it).
 */
export type PendingSubtask = { taskId: string; taskName: string; state: SuspendedState };

/**
 * How a nested subtask ended: its answer, or an error the caller can report; with `pending`, it has
 * not ended but waits on the user (its node stays open until the tool suspends and is resumed).
 */
export type NestedSubtaskResult = { ok: boolean; text: string; pending?: PendingSubtask };

/** What a running tool may see of the turn. */
export type ToolContext = {
  toolCallId: string;
  depth: number;
  parentId: string | null;
  signal: AbortSignal;
  /**
   * Sends a frame of the turn now, in order with the loop's own (a scratchpad patch, a plan, a
   * progress update); the turn lifecycle stores and relays it like any other. Absent outside a loop.
   */
  emit?: (event: LoopEvent) => void;
  /** The calling level's toolbelt by name (what a subtask of it may use). Absent outside a loop. */
  toolNames?: readonly string[];
  /**
   * One model call counted in the turn like the loop's own (ledger, usage, budget). Absent outside a
   * loop; the loop stays in charge of the provider and the budget.
   */
  callModel?: (request: ModelCallRequest) => Promise<ModelCallResult>;
  /**
   * Runs a subtask nested under this call (its node at depth + 1, its events at depth + 2), counted
   * against the tree-wide budget. A subtask that waits on the user comes back `pending`: the tool
   * must then suspend with it (`resume`) and implement `Tool.resume`. Only the first of one call's
   * subtasks may wait; a second that asks meanwhile ends with an error.
   */
  runSubtask?: (task: NestedSubtask) => Promise<NestedSubtaskResult>;
};

/** A tool the model can call. Each tool enforces its own safety: it never trusts its arguments. */
export interface Tool<A = unknown> {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments, as the model sees it. */
  readonly inputSchema: Record<string, unknown>;
  readonly permissionClass: PermissionClass;
  /** False when two calls must not run at once; default true. */
  readonly parallelSafe?: boolean;
  /**
   * True when running a call twice does no more than running it once: a call in flight when the
   * server died is then run again on recovery. Default: true for the `safe` (read) class only.
   */
  readonly idempotent?: boolean;
  /** A lock name held across the whole turn tree while the tool runs. */
  readonly requiresExclusiveLock?: string;
  validate(args: unknown): ArgsCheck<A>;
  execute(args: A, ctx: ToolContext): Promise<ToolOutcome>;
  /**
   * Continues a call that suspended with `resume`: `state` as it returned it, `resumed` how its pending
   * subtask ended after the user's answer. Needed by any tool that can suspend that way.
   */
  resume?(state: unknown, resumed: NestedSubtaskResult, ctx: ToolContext): Promise<ToolOutcome>;
}
