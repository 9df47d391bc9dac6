import type { TurnUsage } from "@agentwire-chat/protocol";
import type { LlmCallRecord } from "./llm-call-record.js";

/** A usage total with nothing in it. */
export const emptyUsage = (): TurnUsage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0,
  cost_known: true,
  llm_calls: 0,
  tool_calls: 0,
  subtasks: 0,
});

/** Sums the usage of one level and, merged in, of its subtasks. */
export class UsageAccumulator {
  private readonly total: TurnUsage = emptyUsage();

  /** Adds one provider call. */
  addLlmCall(record: LlmCallRecord): void {
    const t = this.total;
    t.input_tokens += record.inputTokens;
    t.output_tokens += record.outputTokens;
    t.reasoning_tokens += record.reasoningTokens;
    t.cache_read_tokens += record.cacheReadTokens;
    t.cache_write_tokens += record.cacheWriteTokens;
    t.cost_usd += record.costUsd;
    t.cost_known &&= record.costKnown;
    t.llm_calls += 1;
  }

  /** Counts one dispatched tool call (run_subtask included). */
  addToolCall(): void {
    this.total.tool_calls += 1;
  }

  /** Counts one started subtask. */
  addSubtask(): void {
    this.total.subtasks += 1;
  }

  /** Adds a subtree's totals. */
  merge(other: TurnUsage): void {
    const t = this.total;
    t.input_tokens += other.input_tokens;
    t.output_tokens += other.output_tokens;
    t.reasoning_tokens += other.reasoning_tokens;
    t.cache_read_tokens += other.cache_read_tokens;
    t.cache_write_tokens += other.cache_write_tokens;
    t.cost_usd += other.cost_usd;
    t.cost_known &&= other.cost_known;
    t.llm_calls += other.llm_calls;
    t.tool_calls += other.tool_calls;
    t.subtasks += other.subtasks;
  }

  /** A copy of the totals, cost rounded to a micro-dollar against float noise. */
  snapshot(): TurnUsage {
    return { ...this.total, cost_usd: Math.round(this.total.cost_usd * 1e6) / 1e6 };
  }
}
