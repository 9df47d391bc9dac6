import type { SuspendedState } from "@agentwire-chat/agents";
import { ChatContext, ExecutionTreeSnapshot, TurnUsage } from "@agentwire-chat/protocol";
import { z } from "zod";

const count = z.number().int().min(0);

/** Budget counters so far: a continued turn stays inside the same tree-wide limits. */
export const BudgetUsed = z.object({
  subtasks: count,
  llmCalls: count,
  toolCalls: count,
  tokens: count,
  bytes: count,
});

const Suspension = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("question"), question: z.string() }),
  z.object({
    kind: z.literal("approval"),
    approvalId: z.string(),
    toolName: z.string(),
    permissionClass: z.string(),
    args: z.unknown(),
  }),
]);

/**
 * The loop's suspension as the agents package writes it: checked down to what a resume dispatches
 * on (the pending call, the suspension, one level at least); the message stacks inside are the
 * loop's own JSON, read back as written.
 */
const LoopState = z
  .looseObject({
    version: z.literal(1),
    model: z.string(),
    toolCallId: z.string(),
    suspension: Suspension,
    levels: z
      .array(
        z.looseObject({
          depth: count,
          parentId: z.string().nullable(),
          messages: z.array(z.looseObject({ role: z.enum(["user", "assistant", "tool"]) })),
          pendingCall: z.object({ id: z.string(), name: z.string() }),
        }),
      )
      .min(1),
  })
  .transform((state) => state as unknown as SuspendedState);

/**
 * What a turn waiting on the user keeps in `turns.suspended_state`: enough to continue it in this
 * process, after a restart, or on another instance. Plain JSON; this schema types the column.
 */
export const SuspendedTurn = z.object({
  version: z.literal(1),
  state: LoopState,
  tree: ExecutionTreeSnapshot,
  /** Usage of the segments before the suspension. */
  usage: TurnUsage,
  budgetUsed: BudgetUsed,
  provider: z.string().min(1),
  model: z.string().min(1),
  chatContext: ChatContext,
  memoryEnabled: z.boolean(),
  /** The root's text so far, kept if the turn is stopped while it waits. */
  text: z.string(),
  /**
   * When it was stored (epoch ms): the calls that wait count the wait in their duration. States
   * stored before it existed have none, and their calls count only the time they ran.
   */
  suspendedAt: z.number().optional(),
});
export type SuspendedTurn = z.output<typeof SuspendedTurn>;

/** Reads a stored blob back, or undefined when it is not a suspended turn this version understands. */
export function readSuspendedTurn(blob: unknown): SuspendedTurn | undefined {
  const parsed = SuspendedTurn.safeParse(blob);
  return parsed.success ? parsed.data : undefined;
}
