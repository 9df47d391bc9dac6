import type { LlmCallRecord, LoopEvent } from "@agentwire/agents";
import type { TurnStatus } from "@agentwire/protocol";

/** Watches turns for operations (metrics); every method must be cheap and must not throw. */
export interface TurnObserver {
  llmCall(record: LlmCallRecord): void;
  event(event: LoopEvent): void;
  turnEnded(status: TurnStatus): void;
}
