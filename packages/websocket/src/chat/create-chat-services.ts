import {
  askUserTool,
  type BudgetLimits,
  BudgetLimits as BudgetLimitsSchema,
  type ProviderRegistry,
  runSubtaskTool,
} from "@agentwire/agents";
import { resolveToolPolicy, type ToolPolicyConfig } from "../tools/tool-policy.js";
import { TurnRegistry } from "../turns/turn-registry.js";
import type { ChatServices } from "./chat-services.js";
import { ContextScopes } from "./context-scopes.js";
import { ThreadStates } from "./thread-states/thread-states.js";

export type ChatServicesOptions = Partial<Omit<ChatServices, "providers" | "limits" | "policyFor">> & {
  providers: ProviderRegistry;
  limits?: Partial<BudgetLimits>;
  policy?: Partial<ToolPolicyConfig>;
};

/** Chat services with production defaults: ask_user and run_subtask as the base toolbelt, the default policy. */
export function createChatServices(options: ChatServicesOptions): ChatServices {
  const { providers, limits, policy, ...rest } = options;
  const resolved = resolveToolPolicy(policy);
  return {
    turns: new TurnRegistry(),
    defaults: {},
    scopes: ContextScopes.from(),
    threadStates: new ThreadStates(),
    serverTools: () => [askUserTool, runSubtaskTool],
    ...rest,
    providers,
    limits: BudgetLimitsSchema.parse(limits ?? {}),
    policyFor: () => resolved,
  };
}
