import type { NodeCost, ThreadUsage, TurnCost } from "@agentwire-chat/protocol";
import { NotFoundError } from "@agentwire-chat/protocol";
import type { NodeCostRow, Repositories } from "@agentwire-chat/storage";
import type { FastifyInstance } from "fastify";

/**
 * A thread's cost over HTTP, from the provider-call ledger, for the turns of its current branch;
 * another user's thread is 404 like a missing one.
 */
export async function usageRoutes(app: FastifyInstance, opts: { repos: Repositories }) {
  const { repos } = opts;

  app.get<{ Params: { id: string } }>("/api/threads/:id/usage", async (request): Promise<ThreadUsage> => {
    const { userId } = request;
    const threadId = request.params.id;
    if (!(await repos.threads.get(userId, threadId))) throw new NotFoundError("thread");
    const [rows, branch] = await Promise.all([
      repos.llmCalls.costByNode(userId, threadId),
      repos.messages.branch(userId, threadId),
    ]);
    // The current branch's turns: what another branch's answers cost is not this conversation's.
    const onBranch = new Set(branch?.messages.map((m) => m.turn_id));
    return { turns: toTurnCosts(rows.filter((row) => onBranch.has(row.turnId))) };
  });
}

/** Groups the ledger's per-node sums into turns (rows come turn by turn), each with its totals. */
function toTurnCosts(rows: readonly NodeCostRow[]): TurnCost[] {
  const turns: TurnCost[] = [];
  for (const row of rows) {
    let turn = turns.at(-1);
    if (turn?.turn_id !== row.turnId) {
      turn = {
        turn_id: row.turnId,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: 0,
        cost_known: true,
        llm_calls: 0,
        nodes: [],
      };
      turns.push(turn);
    }
    const node: NodeCost = {
      parent_id: row.parentId,
      input_tokens: row.inputTokens,
      output_tokens: row.outputTokens,
      cost_usd: row.costUsd,
      cost_known: row.costKnown,
      llm_calls: row.llmCalls,
    };
    turn.nodes.push(node);
    turn.input_tokens += node.input_tokens;
    turn.output_tokens += node.output_tokens;
    turn.cost_usd += node.cost_usd;
    turn.cost_known &&= node.cost_known;
    turn.llm_calls += node.llm_calls;
  }
  return turns;
}
