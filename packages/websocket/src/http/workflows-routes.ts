import {
  formatIssues,
  type NodeRegistry,
  validateWorkflow,
  WorkflowGraph,
  type WorkflowIssue,
} from "@agentwire-chat/agents";
import { NotFoundError } from "@agentwire-chat/protocol";
import type { Repositories, WorkflowRow } from "@agentwire-chat/storage";
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { bodyIssues } from "./body-issues.js";

interface WorkflowParams {
  id: string;
}

// No NUL: Postgres text cannot hold it, and a name is for reading.
const Name = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((name) => !name.includes("\u0000"), "must not contain NUL characters");
const CreateBody = z.strictObject({ name: Name, graph: z.unknown() });
const UpdateBody = z
  .strictObject({ name: Name.optional(), graph: z.unknown().optional() })
  .refine((b) => b.name !== undefined || b.graph !== undefined, { message: "give name or graph" });

type Checked<T> = { ok: true; value: T } | { ok: false; message: string; issues: WorkflowIssue[] };

/**
 * The caller's saved workflows over HTTP. A graph is validated against the server's node registry
 * (an empty draft — no nodes — may be saved; it cannot run). Another user's workflow is 404 exactly
 * like a missing one. A refused body is `400 {error: {code: "bad_request", message, issues}}`.
 */
export async function workflowsRoutes(
  app: FastifyInstance,
  opts: {
    repos: Repositories;
    registry: NodeRegistry;
    /** Told of each save by PUT: the user's editors with the workflow open get `workflow_updated`. */
    updates?: { saved(userId: string, row: WorkflowRow): void };
  },
) {
  const { repos, registry, updates } = opts;

  app.get("/api/workflows", async (request) => ({
    workflows: (await repos.workflows.list(request.userId)).map((row) => {
      const { graph: _graph, ...summary } = toWorkflowRecord(row);
      return summary;
    }),
  }));

  app.get<{ Params: WorkflowParams }>("/api/workflows/:id", async (request) => {
    const row = await repos.workflows.get(request.userId, request.params.id);
    if (!row) throw new NotFoundError("workflow");
    return { workflow: toWorkflowRecord(row) };
  });

  app.post("/api/workflows", async (request, reply) => {
    const body = CreateBody.safeParse(request.body ?? {});
    if (!body.success) return badRequest(reply, bodyIssues(body.error), []);
    const graph = checkGraph(body.data.graph, registry);
    if (!graph.ok) return badRequest(reply, graph.message, graph.issues);
    const row = await repos.workflows.create(request.userId, body.data.name, graph.value);
    return reply.code(201).send({ workflow: toWorkflowRecord(row) });
  });

  app.put<{ Params: WorkflowParams }>("/api/workflows/:id", async (request, reply) => {
    if (!(await repos.workflows.get(request.userId, request.params.id))) throw new NotFoundError("workflow");
    const body = UpdateBody.safeParse(request.body ?? {});
    if (!body.success) return badRequest(reply, bodyIssues(body.error), []);
    let graph: Record<string, unknown> | undefined;
    if (body.data.graph !== undefined) {
      const checked = checkGraph(body.data.graph, registry);
      if (!checked.ok) return badRequest(reply, checked.message, checked.issues);
      graph = checked.value;
    }
    const row = await repos.workflows.update(request.userId, request.params.id, {
      ...(body.data.name !== undefined && { name: body.data.name }),
      ...(graph !== undefined && { graph }),
    });
    if (!row) throw new NotFoundError("workflow");
    updates?.saved(request.userId, row);
    return { workflow: toWorkflowRecord(row) };
  });

  app.delete<{ Params: WorkflowParams }>("/api/workflows/:id", async (request, reply) => {
    if (!(await repos.workflows.delete(request.userId, request.params.id)))
      throw new NotFoundError("workflow");
    return reply.code(204).send();
  });
}

/** A graph to store: valid against the registry, or an empty draft. Issues name node and port. */
function checkGraph(raw: unknown, registry: NodeRegistry): Checked<Record<string, unknown>> {
  const shape = WorkflowGraph.safeParse(raw);
  if (shape.success && shape.data.nodes.length === 0) return { ok: true, value: shape.data };
  const valid = validateWorkflow(raw, registry);
  if (valid.ok) return { ok: true, value: valid.graph };
  return { ok: false, message: `graph: ${formatIssues(valid.errors)}`, issues: valid.errors };
}

function badRequest(reply: FastifyReply, message: string, issues: WorkflowIssue[]) {
  return reply.code(400).send({ error: { code: "bad_request", message, issues } });
}

/** A saved workflow as the HTTP API shows it. */
type WorkflowRecord = {
  id: string;
  name: string;
  graph: Record<string, unknown>;
  created_at: string;
  updated_at: string;
};

function toWorkflowRecord(row: WorkflowRow): WorkflowRecord {
  return {
    id: row.id,
    name: row.name,
    graph: row.graph,
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}
