import { quietModelCall } from "../loop/model-call-record.js";
import { requestSettings } from "../loop/request-settings.js";
import type { ModelSettings } from "../providers/model-settings.js";
import type { Provider } from "../providers/provider.js";
import type { LlmCallRecord } from "../usage/llm-call-record.js";
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
  /** The summarizer model's own settings (its model table entry); its `max_output_tokens` replaces the 4,000 cap. */
  settings?: ModelSettings;
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
    ...requestSettings({ maxTokens: SUMMARIZER_MAX_TOKENS, settings: input.settings }),
  };
  const { turn, record } = await quietModelCall(input.provider, request, input.signal, {
    operation: "summarizer",
    depth: 0,
    parentId: null,
    now,
    errorPrefix: "summarizer: ",
  });
  const failure = turn.error?.message ?? (turn.aborted ? "aborted" : undefined);
  const output: SummarizerOutput =
    failure !== undefined ? { ok: false, message: failure } : parseSummarizerOutput(turn.text);
  return { record, output };
}
