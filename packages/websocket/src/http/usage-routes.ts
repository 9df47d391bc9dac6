import type { LlmOperation, NodeCost, OperationCost, ThreadUsage, TurnCost } from "@agentwire-chat/protocol";
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
    const [rows, all, branch] = await Promise.all([
      repos.llmCalls.costByNode(userId, threadId),
      repos.messages.list(userId, threadId),
      repos.messages.branch(userId, threadId),
    ]);
    // What another branch's answers cost is not this conversation's: a turn whose rows are all off
    // the current branch is left out (one that stored no row yet stays).
    const onBranch = new Set(branch?.messages.map((m) => m.turn_id));
    const offBranch = new Set(
      all.map((m) => m.turn_id).filter((id) => id !== undefined && !onBranch.has(id)),
    );
    const turns = toTurnCosts(rows.filter((row) => !offBranch.has(row.turnId)));
    return { turns, by_operation: byOperation(turns) };
  });
}

/** Groups the ledger's per-node sums into turns (rows come turn by turn), each with its totals. */
function toTurnCosts(rows: readonly NodeCostRow[]): TurnCost[] {
  const turns: TurnCost[] = [];
  let current: TurnCost | undefined;
  for (const row of rows) {
    if (current?.turn_id !== row.turnId) {
      current = { turn_id: row.turnId, ...zero(), nodes: [], by_operation: [] };
      turns.push(current);
    }
    const node: NodeCost = {
      parent_id: row.parentId,
      operation: row.operation,
      input_tokens: row.inputTokens,
      output_tokens: row.outputTokens,
      cost_usd: row.costUsd,
      cost_known: row.costKnown,
      llm_calls: row.llmCalls,
    };
    current.nodes.push(node);
    add(current, node);
    add(operationEntry(current.by_operation, node.operation), node);
  }
  return turns;
}

/** The thread's totals per operation, over the turns given. */
function byOperation(turns: readonly TurnCost[]): OperationCost[] {
  const out: OperationCost[] = [];
  for (const turn of turns)
    for (const entry of turn.by_operation) add(operationEntry(out, entry.operation), entry);
  return out;
}

function operationEntry(entries: OperationCost[], operation: LlmOperation): OperationCost {
  let entry = entries.find((e) => e.operation === operation);
  if (!entry) {
    entry = { operation, ...zero() };
    entries.push(entry);
  }
  return entry;
}

type Totals = Omit<OperationCost, "operation">;

function zero(): Totals {
  return { input_tokens: 0, output_tokens: 0, cost_usd: 0, cost_known: true, llm_calls: 0 };
}

function add(into: Totals, from: Totals): void {
  into.input_tokens += from.input_tokens;
  into.output_tokens += from.output_tokens;
  into.cost_usd += from.cost_usd;
  into.cost_known &&= from.cost_known;
  into.llm_calls += from.llm_calls;
}
