import type { StoredPlan } from "@agentwire-chat/protocol";
import { NotFoundError } from "@agentwire-chat/protocol";
import type { PlanRow, Repositories } from "@agentwire-chat/storage";
import type { FastifyInstance } from "fastify";

/** A thread's plans over HTTP; another user's thread is 404 exactly like a missing one. */
export async function plansRoutes(app: FastifyInstance, opts: { repos: Repositories }) {
  const { repos } = opts;

  app.get<{ Params: { id: string } }>("/api/threads/:id/plans", async (request) => {
    if (!(await repos.threads.get(request.userId, request.params.id))) throw new NotFoundError("thread");
    const rows = await repos.plans.listForThread(request.userId, request.params.id);
    return { plans: rows.map(toStoredPlan) };
  });
}

/** A plan row as the protocol's StoredPlan (its chat context stays on the server). */
function toStoredPlan(row: PlanRow): StoredPlan {
  return {
    id: row.id,
    tool_call_id: row.toolCallId,
    status: row.status,
    execution_mode: row.executionMode,
    plan: row.plan,
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}
