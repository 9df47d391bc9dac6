import type { BudgetReason, TurnStatus, TurnUsage } from "@agentwire-chat/protocol";
import type { TurnNode } from "../turn-nodes.js";

// The AI SDK's UI message chunks this edge sends, and the transport's server frames: the shapes of
// `UIMessageChunk` and `WebSocketChatTransportResponse` in the `ai` package (7.x,
// dist/index.d.ts), restated so the server does not load `ai`. The tests assign them to the real
// types, so a drift fails the typecheck.

/**
 * One node of the turn's tree (a tool call at any depth, a subtask's text inside it), as a data part:
 * the node without its arguments.
 */
export type AgentwireNode = Omit<TurnNode, "args">;

/** What the edge keeps in the assistant message's metadata (under `agentwire`). */
export interface AgentwireMetadata {
  /** The turn's status word when it ended, or `waiting_user` while it waits on a question or approval. */
  status?: TurnStatus;
  usage?: TurnUsage;
  budget_exceeded?: { reason: BudgetReason; limit: number; observed: number };
  error?: { code: string; message: string };
}

type Metadata = { agentwire: AgentwireMetadata };

/** The AI SDK's finish reasons. */
export type FinishReason =
  | "stop"
  | "length"
  | "content-filter"
  | "tool-calls"
  | "error"
  | "interrupted"
  | "other";

/** The chunks of `UIMessageChunk` this edge sends. */
export type UiChunk =
  | { type: "start"; messageId: string }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | {
      type: "tool-input-available";
      toolCallId: string;
      toolName: string;
      input: unknown;
      dynamic: true;
      title?: string;
    }
  | { type: "tool-output-available"; toolCallId: string; output: unknown; dynamic: true }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; dynamic: true }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | { type: "data-agentwire-node"; id: string; data: AgentwireNode }
  | { type: "data-agentwire-state"; data: { state: string; detail?: string }; transient: true }
  | { type: "message-metadata"; messageMetadata: Metadata }
  | { type: "error"; errorText: string }
  | { type: "finish"; finishReason: FinishReason; messageMetadata: Metadata };

/** The transport's server frames. */
export type TransportResponse =
  | { type: "start"; requestId: string }
  | { type: "chunk"; requestId: string; sequence: number; chunk: UiChunk }
  | { type: "end"; requestId: string }
  | { type: "error"; requestId: string; errorText?: string }
  | { type: "no-active"; requestId: string };
