import { type LlmCallRecord, UsageAccumulator } from "@agentwire-chat/agents";
import type { TurnUsage } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";

/**
 * Accounts a provider call that finished after its turn ended (a late summarizer): a ledger row under
 * that turn, and its usage added to the turn's row (and to its stored suspension, so a resumed turn
 * keeps it), so the ledger and the turn row agree. The turn's final message and `usage` frame, already
 * sent, do not count it.
 */
export async function recordLateCall(
  repos: Repositories,
  userId: string,
  threadId: string,
  turnId: string,
  call: LlmCallRecord,
): Promise<void> {
  await repos.llmCalls.record(userId, threadId, turnId, call);
  const row = await repos.turns.get(userId, turnId);
  if (!row) return;
  const suspended = row.suspendedState;
  await repos.turns.update(userId, turnId, {
    usage: addCall(row.usage ?? new UsageAccumulator().snapshot(), call),
    ...(suspended && { suspendedState: { ...suspended, usage: addCall(suspended.usage, call) } }),
  });
}

function addCall(before: TurnUsage, call: LlmCallRecord): TurnUsage {
  const usage = new UsageAccumulator();
  usage.merge(before);
  usage.addLlmCall(call);
  return usage.snapshot();
}
