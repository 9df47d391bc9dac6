import type { LlmOperation } from "@agentwire-chat/protocol";
import type { ModelMessage, ToolModelMessage } from "../providers/model-message.js";
import type { Suspension } from "./suspension.js";

/** One level of a suspended turn tree, enough to run it again. Plain JSON. */
export type SuspendedLevel = {
  depth: number;
  parentId: string | null;
  systemPrompt: string;
  /** The level's toolbelt by name, resolved against the root toolbelt on resume; null: the whole toolbelt. */
  toolNames: string[] | null;
  outputSchema?: Record<string, unknown>;
  title?: string;
  /**
   * What the level's model calls are for when not the default of its depth (`plan_step`): kept so a
   * step resumed after an answer, an approval or a crash records its calls as before. States stored
   * before it existed have none, and such a level records `subtask` as it did.
   */
  operation?: LlmOperation;
  /** Messages up to and including the assistant message whose call is pending. */
  messages: ModelMessage[];
  /** Results of the other calls of that assistant message (finished beside the pending one). */
  results: ToolModelMessage[];
  /** The call of this level that waits: ask_user itself, or the run_subtask above a deeper level. */
  pendingCall: { id: string; name: string };
  iterationsUsed: number;
  maxIterations: number;
  /**
   * Set when this level is not an agent loop but a tool's nested subtask node waiting (a plan step):
   * `pendingCall` is that node (under the tool's call `callId`, so `parentId` is `callId`), and on
   * resume the tool `name` of the level above continues from `state` with the node's outcome. Such a
   * level has no conversation: `messages` and `results` are empty and the iteration fields 0.
   * States stored before it existed have no such level and resume as before.
   */
  tool?: { name: string; callId: string; state: unknown };
  /**
   * Further calls of the same assistant message that also wait on the user (parallel sibling
   * subtasks that each asked), in the order they are asked after `pendingCall` is answered. Each keeps
   * its own suspension and, for a subtask, the levels below it (`nested`, root of it at depth + 1),
   * so no work is lost. States stored before it existed have none and resume as before.
   */
  deferred?: DeferredCall[];
};

/** A waiting sibling of a level's pending call: asked once the calls before it are answered. */
export type DeferredCall = {
  call: { id: string; name: string };
  suspension: Suspension;
  /** The waiting levels below the call (a subtask's, or a tool's node and its subtask); null: the call itself asked. */
  nested: SuspendedState | null;
};

/**
 * A suspended turn: the message stacks of every level from the root (first) down to the one that
 * asked (last). Plain JSON, so it can be stored and resumed after a restart.
 */
export type SuspendedState = {
  version: 1;
  model: string;
  /** The tool call the user's answer belongs to (the deepest pending call). */
  toolCallId: string;
  suspension: Suspension;
  levels: SuspendedLevel[];
};
