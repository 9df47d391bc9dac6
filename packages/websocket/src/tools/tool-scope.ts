import type { ChatContext, PlanExecutionMode } from "@agentwire-chat/protocol";

/** What the tools of one turn are built for. */
export type ToolScope = {
  userId: string;
  threadId: string;
  chatContext: ChatContext;
  /** The socket that started (or resumed) the turn; client UI tools run there. */
  connectionId: string;
  /** The turn's resolved provider id and model (build_workflow plans with the same model). */
  provider?: string;
  model?: string;
  /** The context scope's default execution mode for create_plan (operator config); auto_execute when unset. */
  planMode?: PlanExecutionMode;
};
