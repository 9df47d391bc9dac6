import type { LoopEvent } from "../loop/loop-event.js";
import type { PermissionClass } from "./permission-class.js";

/** Something that can suspend the turn until the user answers; plain JSON so it can be stored. */
export type Suspension =
  | { kind: "question"; question: string }
  | {
      kind: "approval";
      approvalId: string;
      toolName: string;
      permissionClass: PermissionClass;
      args: unknown;
    };

/** What a tool returns: a result for the model (possibly an error), or a suspension of the turn. */
export type ToolOutcome =
  | { type: "result"; output: unknown; isError?: boolean }
  | { type: "suspend"; suspension: Suspension };

/** Argument validation result: the parsed value, or a message the model can act on. */
export type ArgsCheck<A> = { ok: true; value: A } | { ok: false; message: string };

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
  /** A lock name held across the whole turn tree while the tool runs. */
  readonly requiresExclusiveLock?: string;
  validate(args: unknown): ArgsCheck<A>;
  execute(args: A, ctx: ToolContext): Promise<ToolOutcome>;
}
