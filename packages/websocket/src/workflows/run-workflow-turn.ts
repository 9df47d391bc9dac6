import {
  type NodeRegistry,
  runWorkflow,
  type WorkflowRunInput,
  type WorkflowRunResult,
} from "@agentwire/agents";
import { AgentwireError, type ChatMessageData, contentText } from "@agentwire/protocol";
import type { WorkflowRow } from "@agentwire/storage";
import { requireChat } from "../chat/chat-connection.js";
import { beginTurn } from "../turns/begin-turn.js";
import { countedUsage, endTurn, type TurnResult } from "../turns/end-turn.js";
import type { TurnRun } from "../turns/turn-run.js";
import type { ConnectionContext } from "../ws/connection-context.js";

/**
 * Route 1: `chat_message {workflow_target:"workflow", workflow_id}` runs that saved workflow as a turn
 * on the thread. The chat text is the run's input; job_update/node_update frames are relayed through
 * the turn (seq-stamped, replayable); `stop` aborts it; the run has the turn's wall-clock budget; the
 * output text is stored as the final assistant message.
 */
export async function runWorkflowTurn(
  data: ChatMessageData,
  conn: ConnectionContext,
  requestId?: string,
): Promise<void> {
  const chat = requireChat(conn);
  const workflows = chat.workflows;
  if (!workflows) throw new AgentwireError("unavailable", "saved workflows are not enabled on this server");
  if (data.workflow_id === undefined) {
    throw new AgentwireError("bad_request", 'data.workflow_id: required with workflow_target "workflow"');
  }
  const row = await conn.repos.workflows.get(conn.userId, data.workflow_id);
  if (!row) throw new AgentwireError("not_found", "workflow not found");
  // LLM nodes that name no provider use the message's (or the server's default); a provider the
  // message names explicitly must exist, like on the agent route.
  const resolved = chat.providers.resolve({ provider: data.provider, model: data.model }, chat.defaults);
  if (!resolved.ok && (data.provider !== undefined || data.model !== undefined)) {
    throw new AgentwireError("bad_request", resolved.message);
  }
  const input = {
    text: contentText(data.content),
    ...(resolved.ok && { provider: resolved.provider.id, model: resolved.model }),
  };
  const run = await beginTurn(
    conn,
    chat,
    data,
    {
      provider: resolved.ok ? resolved.provider.id : "workflow",
      model: resolved.ok ? resolved.model : row.id,
    },
    requestId,
  );
  // The socket's frame queue must not wait for the run: `stop` has to get through.
  void driveWorkflow(run, { workflow: row, registry: workflows.registry, input }, conn);
}

type WorkflowJob = {
  workflow: WorkflowRow;
  registry: NodeRegistry;
  input: WorkflowRunInput;
};

/** Runs the workflow inside the turn and ends the turn; never throws. */
async function driveWorkflow(run: TurnRun, job: WorkflowJob, conn: ConnectionContext): Promise<void> {
  const { turn, limits } = run;
  const { workflow: row, registry, input } = job;
  run.logger.info({ workflow_id: row.id }, "workflow turn started");
  turn.emit({ type: "agent_state", state: "executing", detail: `workflow: ${row.name}` });

  let llmCalls = 0;
  const started = performance.now();
  let outcome: WorkflowRunResult;
  try {
    const frames = runWorkflow({
      graph: row.graph,
      registry,
      input,
      signal: turn.abort.signal,
      wallClockMs: limits.MAX_WALL_CLOCK_MS,
      workflowId: row.id,
      countLlmCall: () => {
        if (llmCalls >= limits.MAX_TOTAL_LLM_CALLS) return false;
        llmCalls += 1;
        return true;
      },
    });
    for (;;) {
      const next = await frames.next();
      if (next.done) {
        outcome = next.value;
        break;
      }
      turn.emit(next.value);
    }
  } catch (error) {
    run.logger.error({ err: error }, "workflow turn failed");
    const usage = countedUsage({ llmCalls }, llmCalls === 0);
    await endTurn(
      run,
      { status: "error", usage, error: { code: "internal", message: "internal error" } },
      "",
    );
    return;
  }

  const usage = countedUsage({ llmCalls }, llmCalls === 0);
  const result: TurnResult = { status: outcome.status, usage };
  let text = outcome.text;
  if (outcome.status === "budget_exceeded") {
    const limit = limits.MAX_WALL_CLOCK_MS;
    turn.emit({
      type: "budget_exceeded",
      reason: "wall_clock",
      limit,
      observed: Math.max(limit, Math.round(performance.now() - started)),
    });
  } else if (outcome.status === "error") {
    // The failing node is named in job_update/node_update; the stored answer says so too, for a
    // client that reloads the thread or does not show workflow frames.
    text = [outcome.text, `Workflow failed: ${outcome.error ?? "unknown error"}`]
      .filter(Boolean)
      .join("\n\n");
  }
  run.logger.info(
    { workflow_id: row.id, status: outcome.status, llm_calls: llmCalls },
    "workflow turn ended",
  );
  await endTurn(run, result, text);
  try {
    if (outcome.error) await conn.repos.turns.update(turn.userId, turn.turnId, { error: outcome.error });
  } catch (error) {
    run.logger.error({ err: error }, "could not record the workflow's error");
  }
}
