import {
  type LoopContext,
  type ProviderRegistry,
  runWorkflow,
  type WorkflowRunInput,
} from "@agentwire-chat/agents";
import { AgentwireError, type ChatMessageData, contentText } from "@agentwire-chat/protocol";
import type { WorkflowRow } from "@agentwire-chat/storage";
import type { TurnSource } from "../turns/drive-turn.js";
import { countedUsage } from "../turns/end-turn.js";
import { startTurn } from "../turns/start-turn.js";
import type { TurnSegment, TurnServices } from "../turns/turn-segment.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { WorkflowServices } from "./workflow-services.js";

/** What the workflow route runs a turn with: the turn lifecycle, and the providers its LLM nodes default to. */
export type WorkflowTurnServices = TurnServices & {
  providers: ProviderRegistry;
  defaults: { provider?: string | undefined; model?: string | undefined };
};

/**
 * The workflow route: `chat_message {workflow_target:"workflow", workflow_id}` runs that saved workflow as a turn
 * on the thread. The chat text is the run's input; job_update/node_update frames are relayed through
 * the turn (seq-stamped, replayable); `stop` aborts it; the run has the turn's budget (its wall clock
 * and LLM calls); the output text is stored as the final assistant message.
 */
export async function runWorkflowTurn(
  data: ChatMessageData,
  conn: ConnectionContext,
  services: { turns: WorkflowTurnServices; workflows: WorkflowServices | undefined },
  requestId?: string,
): Promise<void> {
  const { turns, workflows } = services;
  if (!workflows) throw new AgentwireError("unavailable", "saved workflows are not enabled on this server");
  if (data.workflow_id === undefined) {
    throw new AgentwireError("bad_request", 'data.workflow_id: required with workflow_target "workflow"');
  }
  const row = await conn.repos.workflows.get(conn.userId, data.workflow_id);
  if (!row) throw new AgentwireError("not_found", "workflow not found");
  // LLM nodes that name no provider use the message's (or the server's default); a provider the
  // message names explicitly must exist, like on the agent route.
  const resolved = turns.providers.resolve({ provider: data.provider, model: data.model }, turns.defaults);
  if (!resolved.ok && (data.provider !== undefined || data.model !== undefined)) {
    throw new AgentwireError("bad_request", resolved.message);
  }
  const input = {
    text: contentText(data.content),
    ...(resolved.ok && { provider: resolved.provider.id, model: resolved.model }),
  };
  const who = {
    provider: resolved.ok ? resolved.provider.id : "workflow",
    model: resolved.ok ? resolved.model : row.id,
  };
  const job = { workflow: row, registry: workflows.registry, input };
  // The socket's frame queue does not wait for the run (the driver runs on): `stop` gets through.
  await startTurn(conn, turns, data, {
    who,
    requestId,
    admission: "none",
    start: (run) => async (ctx) => workflowRun(run, job, ctx),
    // No checkpoint to continue from: a shutdown interrupts it.
    drive: { continuable: false },
  });
}

type WorkflowJob = {
  workflow: WorkflowRow;
  registry: WorkflowServices["registry"];
  input: WorkflowRunInput;
};

/** The workflow run as a source of the turn driver: its frames, then the output text as the answer. */
async function* workflowRun(run: TurnSegment, job: WorkflowJob, ctx: LoopContext): TurnSource {
  const { turn, limits } = run;
  const { workflow: row, registry, input } = job;
  run.logger.info({ workflow_id: row.id }, "workflow turn started");
  yield { type: "agent_state", state: "executing", detail: `workflow: ${row.name}` };

  let llmCalls = 0;
  const outcome = yield* runWorkflow({
    graph: row.graph,
    registry,
    input,
    signal: turn.abort.signal,
    budget: ctx.budget,
    workflowId: row.id,
    // Counted here, not by the budget: a call over the limit fails its node (the workflow's error)
    // instead of ending the turn as budget_exceeded.
    countLlmCall: () => {
      if (llmCalls >= limits.MAX_TOTAL_LLM_CALLS) return false;
      llmCalls += 1;
      return true;
    },
  });

  let text = outcome.text;
  if (outcome.status === "error") {
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
  return {
    status: outcome.status,
    text,
    messages: [],
    usage: countedUsage({ llmCalls }, llmCalls === 0),
    ...(outcome.error !== undefined && { rowError: outcome.error }),
  };
}
