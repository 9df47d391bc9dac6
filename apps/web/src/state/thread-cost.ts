import type { TurnCost } from "@agentwire-chat/protocol";

/** A thread's spend in all: the sums of its turns' ledger totals. */
export type ThreadCost = {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  llmCalls: number;
  costUsd: number;
  /** False when some call's model has no known price (its cost is then not in `costUsd`). */
  costKnown: boolean;
};

/** Sums the turns `GET /api/threads/:id/usage` lists. */
export function sumThreadCost(turns: readonly TurnCost[]): ThreadCost {
  const total: ThreadCost = {
    turns: turns.length,
    inputTokens: 0,
    outputTokens: 0,
    llmCalls: 0,
    costUsd: 0,
    costKnown: true,
  };
  for (const turn of turns) {
    total.inputTokens += turn.input_tokens;
    total.outputTokens += turn.output_tokens;
    total.llmCalls += turn.llm_calls;
    total.costUsd += turn.cost_usd;
    total.costKnown &&= turn.cost_known;
  }
  return total;
}
