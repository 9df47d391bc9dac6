import { streamModelTurn } from "../loop/stream-model-turn.js";
import type { Provider } from "../providers/provider.js";
import { buildLlmCallRecord, type LlmCallRecord } from "../usage/llm-call-record.js";
import type { CompressionJob } from "./assemble-context.js";
import { parseSummarizerOutput, type SummarizerOutput } from "./parse-summarizer-output.js";
import { SUMMARIZER_SYSTEM_PROMPT, summarizerInput } from "./summarizer-prompt.js";

/** Cap on the summarizer's answer. */
const SUMMARIZER_MAX_TOKENS = 4_000;

export type SummarizeInput = {
  provider: Provider;
  model: string;
  job: CompressionJob;
  /** The rendered scratchpad, so proposals can name existing ids. */
  scratchpad: string;
  signal: AbortSignal;
  now?: () => number;
};

/** The summarizer call's outcome and its ledger record (there is one even when the call failed). */
export type SummarizeOutcome = { record: LlmCallRecord; output: SummarizerOutput };

/**
 * One summarizer call: folds the job's messages into the previous summary. Streams nothing to the
 * client and never throws: a provider failure or an unusable answer is `output.ok === false`.
 */
export async function summarizeHistory(input: SummarizeInput): Promise<SummarizeOutcome> {
  const now = input.now ?? (() => performance.now());
  const { job } = input;
  const request = {
    model: input.model,
    systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
    messages: [
      {
        role: "user" as const,
        content: summarizerInput(job.previous, input.scratchpad, job.entries, job.pinnedIds),
      },
    ],
    tools: [],
    maxTokens: SUMMARIZER_MAX_TOKENS,
  };
  const startedAt = Date.now();
  const t0 = now();
  const stream = streamModelTurn(input.provider, request, input.signal, null, 0);
  let next = await stream.next();
  while (!next.done) next = await stream.next();
  const turn = next.value;
  const failure = turn.error?.message ?? (turn.aborted ? "aborted" : undefined);
  const record = buildLlmCallRecord({
    provider: input.provider.id,
    model: input.model,
    depth: 0,
    parentId: null,
    usage: turn.usage,
    latencyMs: Math.round(now() - t0),
    startedAt,
    ...(failure !== undefined && { error: `summarizer: ${failure}` }),
  });
  const output: SummarizerOutput =
    failure !== undefined ? { ok: false, message: failure } : parseSummarizerOutput(turn.text);
  return { record, output };
}
