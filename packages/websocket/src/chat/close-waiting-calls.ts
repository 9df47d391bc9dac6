import {
  CREATE_PLAN,
  PlanResumeState,
  type SuspendedState,
  type ToolCallUpdateEvent,
  type ToolModelMessage,
  waitingCalls,
} from "@agentwire-chat/agents";
import { storeRow } from "../turns/end-turn.js";
import { rootRow } from "../turns/root-row.js";
import type { TurnSegment } from "../turns/turn-segment.js";

/** What a call that waited on the user returns when the turn is stopped instead of answered. */
const CANCELLED = "cancelled";

/**
 * A waiting turn that is stopped without an answer never runs its loop again, so nothing else would
 * close its pending calls: sends each level's pending call (and the deferred siblings that would
 * have been asked next, with their subtasks' calls) its `end` (deepest first, like a resume would),
 * so every `start` has an `end` and the tree has no open node, and stores the root's tool rows (the
 * calls finished beside the pending ones and the cancelled ones) so the history stays paired.
 */
export async function closeWaitingCalls(run: TurnSegment, state: SuspendedState): Promise<void> {
  for (const call of waitingCalls(state)) {
    const end: ToolCallUpdateEvent = {
      type: "tool_call_update",
      tool_call_id: call.id,
      name: call.name,
      status: "end",
      result: CANCELLED,
      is_error: true,
      parent_id: call.parentId,
      depth: call.depth,
    };
    run.tree.add(end);
    run.turn.emit(end);
    // A plan whose step waited will not run on: clients listing plans must not see it running.
    if (call.tool?.name === CREATE_PLAN) {
      const saved = PlanResumeState.safeParse(call.tool.state);
      if (saved.success) {
        await run.repos.plans
          .setStatus(run.turn.userId, saved.data.plan.id, "failed")
          .catch((err: unknown) => {
            run.logger.warn({ err }, "could not mark the stopped plan failed");
          });
      }
    }
  }
  const root = state.levels[0];
  if (!root) return;
  const cancelled: ToolModelMessage[] = [root.pendingCall, ...(root.deferred ?? []).map((d) => d.call)].map(
    (call) => ({ role: "tool", toolCallId: call.id, name: call.name, content: CANCELLED, isError: true }),
  );
  const assistant = root.messages.findLast((m) => m.role === "assistant" && m.toolCalls?.length);
  const order = assistant?.role === "assistant" ? (assistant.toolCalls ?? []).map((c) => c.id) : [];
  const rows = [...root.results, ...cancelled].sort(
    (a, b) => order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId),
  );
  for (const row of rows) await storeRow(run, rootRow(row, run.turn.turnId, run.provider, run.model));
}
