import type { LlmCallRecord, LoopEvent } from "@agentwire-chat/agents";
import type { TurnStatus } from "@agentwire-chat/protocol";

/** Watches turns for operations (metrics, traces); every method must be cheap and must not throw. */
export interface TurnObserver {
  llmCall(record: LlmCallRecord): void;
  event(event: LoopEvent): void;
  /** The segment stopped to wait on the user; the turn goes on in a later segment, maybe on another instance. */
  turnSuspended?(): void;
  /** The segment stopped for a handover: the turn goes on, still `running`, on another instance. */
  turnHandedOver?(): void;
  turnEnded(status: TurnStatus): void;
  /** A tool threw (a bug); the server has logged it under its ref. */
  toolCrashed?(tool: string): void;
}

/** The turn segment a per-turn observer watches: a fresh turn, or one resumed after the user answered. */
export type ObservedTurn = {
  threadId: string;
  turnId: string;
  provider: string;
  model: string;
  resumed: boolean;
};

/** Makes the observer of one turn segment (traces need the turn's identity); undefined watches nothing. */
export type TurnObserverFactory = (turn: ObservedTurn) => TurnObserver | undefined;
