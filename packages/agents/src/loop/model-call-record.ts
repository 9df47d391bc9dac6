import type { LlmOperation } from "@agentwire-chat/protocol";
import type { Provider } from "../providers/provider.js";
import type { ProviderRequest } from "../providers/provider-request.js";
import { buildLlmCallRecord, type LlmCallRecord } from "../usage/llm-call-record.js";
import { type ModelTurn, streamModelTurn } from "./stream-model-turn.js";

/** Where in the tree a call was made, and when. */
export type CallSite = {
  /** What the call is for; the ledger, usage, metrics and spans carry it. */
  operation: LlmOperation;
  depth: number;
  parentId: string | null;
  /** Wall-clock start, for the ledger. */
  startedAt: number;
  latencyMs: number;
  /** The site's clock when the call was made, to time its first token. */
  t0?: number;
};

/**
 * The ledger record of one finished provider call, the same for the loop's own calls, the calls it
 * lends to tools and the summarizer's; a failed or aborted call has one too. `errorPrefix` names who
 * made a failed call (e.g. "summarizer: ").
 */
export function modelCallRecord(
  provider: Provider,
  model: string,
  turn: ModelTurn,
  site: CallSite,
  errorPrefix = "",
): LlmCallRecord {
  const failure = turn.error?.message ?? (turn.aborted ? "aborted" : undefined);
  return buildLlmCallRecord({
    provider: provider.id,
    model,
    operation: site.operation,
    depth: site.depth,
    parentId: site.parentId,
    usage: turn.usage,
    latencyMs: Math.round(site.latencyMs),
    firstTokenMs:
      turn.firstTokenAt !== undefined && site.t0 !== undefined
        ? Math.max(0, turn.firstTokenAt - site.t0)
        : undefined,
    startedAt: site.startedAt,
    error: failure !== undefined ? `${errorPrefix}${failure}` : undefined,
  });
}

/**
 * One provider call whose text is not relayed to the client (a tool's planner, the summarizer: JSON
 * for the server, not prose for the user): its answer and its ledger record.
 */
export async function quietModelCall(
  provider: Provider,
  request: ProviderRequest,
  signal: AbortSignal,
  where: {
    operation: LlmOperation;
    depth: number;
    parentId: string | null;
    now: () => number;
    errorPrefix?: string;
  },
): Promise<{ turn: ModelTurn; record: LlmCallRecord }> {
  const startedAt = Date.now();
  const t0 = where.now();
  const stream = streamModelTurn(provider, request, signal, where);
  let next = await stream.next();
  while (!next.done) next = await stream.next();
  const turn = next.value;
  const site = {
    operation: where.operation,
    depth: where.depth,
    parentId: where.parentId,
    startedAt,
    latencyMs: where.now() - t0,
    t0,
  };
  return { turn, record: modelCallRecord(provider, request.model, turn, site, where.errorPrefix) };
}
