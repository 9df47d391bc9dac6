import { type LoopResult, UsageAccumulator } from "@agentwire/agents";
import type { TurnUsage } from "@agentwire/protocol";
import { endFrames, finish, type TurnRun } from "../chat/turn-driver.js";

/** How a route turn ended, in the agent loop's terms so `finish` stores and ends it the same way. */
export type RouteTurnResult = Pick<LoopResult, "status" | "usage" | "error">;

/**
 * Stores the final assistant message and sends the end frames (usage, idle, the one `done`) with the
 * chat driver's `finish`; if the database fails there, the client still gets a clean end.
 */
export function endRouteTurn(run: TurnRun, result: RouteTurnResult, text: string): void {
  try {
    finish(run, result, text);
  } catch (error) {
    run.logger.error({ err: error }, "could not store the end of the turn");
    run.turn.emit({ type: "error", code: "internal", message: "internal error" });
    endFrames(run, result.usage);
  }
}

/** Turn usage for a route that counts calls but sees no token counts (cost unknown once anything ran). */
export function countedUsage(
  counts: { llmCalls?: number; toolCalls?: number },
  costKnown: boolean,
): TurnUsage {
  const usage = new UsageAccumulator().snapshot();
  return {
    ...usage,
    llm_calls: counts.llmCalls ?? 0,
    tool_calls: counts.toolCalls ?? 0,
    cost_known: costKnown,
  };
}
