import type { BudgetLimits, ContextSettings, ProviderRegistry, Tool } from "@agentwire-chat/agents";
import type { ToolPolicy } from "../tools/tool-policy.js";
import type { ToolScope } from "../tools/tool-scope.js";
import type { AdmissionQueue } from "../turns/admission-queue.js";
import type { TurnObserver } from "../turns/turn-observer.js";
import type { TurnRegistry } from "../turns/turn-registry.js";
import type { TurnServices } from "../turns/turn-segment.js";
import type { OpenWorkflows } from "../workflows/open-workflows.js";
import type { BusySettings } from "./busy-settings.js";
import type { ContextScopes } from "./context-scopes.js";
import type { ModelSettingsTable } from "./model-settings-table.js";
import type { ThreadStates } from "./thread-states/thread-states.js";

/** What the chat turn needs from the process: providers, the turn registry, limits, policy, tools. */
export interface ChatServices extends TurnServices {
  providers: ProviderRegistry;
  turns: TurnRegistry;
  limits: BudgetLimits;
  defaults: { provider?: string | undefined; model?: string | undefined };
  /** The policy of a user's session (defaults per context; the client never sends a tool list). */
  policyFor(userId: string): ToolPolicy;
  /** The server-registered tools for a turn (ask_user, run_subtask, memory, files, web, MCP...). */
  serverTools(scope: ToolScope): Tool[] | Promise<Tool[]>;
  /** Editor-only tools (build_workflow) when a node registry exists; undefined without one. */
  editorTools?: (scope: ToolScope) => Tool[] | Promise<Tool[]>;
  /** Proxies of the client tools a connection announced. */
  clientTools?: (scope: ToolScope) => Tool[];
  /** The context scopes `chat_context.kind` selects (built-ins and CONTEXT_SCOPES_FILE's). */
  scopes: ContextScopes;
  /** Model settings per model (MODEL_SETTINGS_FILE), under each scope's own; absent: none. */
  modelSettings?: ModelSettingsTable;
  /** The sockets subscribed to their threads' live states (`subscribe_threads`). */
  threadStates: ThreadStates;
  /** The workflow each socket has open in its editor context: where `workflow_updated` goes. */
  openWorkflows: OpenWorkflows;
  /** Operations hooks (metrics). */
  observer?: TurnObserver;
  /**
   * Admission of new turns under load (MAX_LIVE_TURNS, ADMISSION_*): a new turn waits here, after its
   * user message is stored and before its expensive work; absent: every turn starts at once.
   */
  admission?: AdmissionQueue;
  /**
   * Other instances continue this one's turns (Redis, TURN_RECOVERY=continue): past the shutdown
   * drain, running turns are handed over to them (left `running`, lease released) instead of
   * interrupted.
   */
  handOverOnShutdown?: boolean;
  /** Messages sent while a turn runs (on_busy's default, the queue's bound); absent: the defaults. */
  busy?: BusySettings;
  /** Extra system-prompt instructions of the deployment. */
  systemPromptExtra?: string;
  /**
   * Context budget and rolling summary (CONTEXT_*, SUMMARIZER_*): set, each turn's context is the
   * summary, the scratchpad and the verbatim tail, with `context_usage` frames; unset, the whole
   * history is sent (pruned at MAX_HISTORY_TOKENS) as before.
   */
  context?: ContextSettings;
}
