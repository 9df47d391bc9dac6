import type { ClientToolResult } from "./ui-tool-proxy.js";

/** A client tool call waiting for its answer: whose it is and which thread's turn runs it. */
export type RoutedToolCall = { userId: string; toolCallId: string; threadId: string };

/**
 * How a `tool_result` reaches a call waiting on another instance (cluster). The proxy records each
 * call it sends (`register`, until `unregister`); an answer that waits on no socket here is handed to
 * `forward`, which finds the call's thread, the instance whose turn lease holds it, and asks that
 * instance's proxy to resolve it (`UIToolProxy.resolveOrphaned`).
 */
export interface ToolCallRouting {
  /** Records where a call waits, for up to `ttlMs`. Never rejects (a failure only loses the routing). */
  register(call: RoutedToolCall, ttlMs: number): Promise<void>;
  /** Forgets a call that ended. Never rejects. */
  unregister(call: RoutedToolCall): Promise<void>;
  /** Delivers a user's answer to the instance where its call waits; true when it answered a call there. */
  forward(userId: string, data: ClientToolResult): Promise<boolean>;
}
