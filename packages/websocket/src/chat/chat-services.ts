import type {
  BudgetLimits,
  ContextSettings,
  MediaGenerator,
  NodeRegistry,
  ProviderRegistry,
  Tool,
} from "@agentwire/agents";
import type { ChatContext, PlanExecutionMode } from "@agentwire/protocol";
import type { AdmissionQueue } from "../turns/admission-queue.js";
import type { TurnObserver } from "../turns/turn-observer.js";
import type { TurnRegistry } from "../turns/turn-registry.js";
import type { TurnServices } from "../turns/turn-run.js";
import type { ContextScopes } from "./context-scopes.js";
import type { ThreadStates } from "./thread-states/thread-states.js";
import type { ToolPolicy } from "./tool-policy.js";

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
  /** The sockets subscribed to their threads' live states (`subscribe_threads`). */
  threadStates: ThreadStates;
  /** Operations hooks (metrics). */
  observer?: TurnObserver;
  /**
   * Admission of new turns under load (MAX_LIVE_TURNS, ADMISSION_*): a new turn waits here, after its
   * user message is stored and before its expensive work; absent: every turn starts at once.
   */
  admission?: AdmissionQueue;
  /** Route 1 (saved workflows) and the workflows HTTP API; absent: route 1 answers `unavailable`. */
  workflows?: { registry: NodeRegistry };
  /** Route 2 (media generation) and `GET /api/assets/:id`; absent: route 2 answers `unavailable`. */
  media?: {
    generators: MediaGenerator[];
    /** Assets are written under `<dataDir>/assets/<user>/<id>`. */
    dataDir: string;
    /** Cap on the bytes of one generated asset; default 25 MiB. */
    maxAssetBytes?: number;
  };
  /** Extra system-prompt instructions of the deployment. */
  systemPromptExtra?: string;
  /**
   * Context budget and rolling summary (CONTEXT_*, SUMMARIZER_*): set, each turn's context is the
   * summary, the scratchpad and the verbatim tail, with `context_usage` frames; unset, the whole
   * history is sent (pruned at MAX_HISTORY_TOKENS) as before.
   */
  context?: ContextSettings;
}

declare module "../ws/agentwire-services.js" {
  interface AgentwireServices {
    chat?: ChatServices;
  }
}
