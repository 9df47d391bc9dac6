import {
  askUserTool,
  type BudgetLimits,
  BudgetLimits as BudgetLimitsSchema,
  type ProviderRegistry,
  runSubtaskTool,
} from "@agentwire-chat/agents";
import { ToolPolicies } from "../tools/tool-policies.js";
import type { ToolPolicyConfig } from "../tools/tool-policy.js";
import type { SpendLimitSettings } from "../turns/spend-limits.js";
import { TurnRegistry } from "../turns/turn-registry.js";
import { OpenWorkflows } from "../workflows/open-workflows.js";
import type { ChatServices } from "./chat-services.js";
import { ContextScopes } from "./context-scopes.js";
import { startQueued } from "./start-queued.js";
import { ThreadStates } from "./thread-states/thread-states.js";

export type ChatServicesOptions = Partial<Omit<ChatServices, "providers" | "limits" | "policyFor">> & {
  providers: ProviderRegistry;
  limits?: Partial<BudgetLimits>;
  policy?: Partial<ToolPolicyConfig>;
  /** Per-user policies (TOOL_POLICY_FILE); absent: `policy` for every user. */
  policies?: ToolPolicies;
  /** SPEND_LIMIT_*; the policies' file sets them per user and group. Absent: no spend limits. */
  spend?: SpendLimitSettings;
};

/**
 * Chat services with production defaults: ask_user and run_subtask as the base toolbelt, the default
 * policy (or the per-user `policies`).
 */
export function createChatServices(options: ChatServicesOptions): ChatServices {
  const { providers, limits, policy, policies = new ToolPolicies(policy), spend, ...rest } = options;
  const services: ChatServices = {
    turns: new TurnRegistry(),
    defaults: {},
    scopes: ContextScopes.from(),
    threadStates: new ThreadStates(),
    openWorkflows: new OpenWorkflows(),
    serverTools: () => [askUserTool, runSubtaskTool],
    ...rest,
    providers,
    limits: BudgetLimitsSchema.parse(limits ?? {}),
    policyFor: (userId) => policies.policyFor(userId),
    ...(spend && {
      spendLimits: { settings: spend, limitsFor: (userId) => policies.spendLimitsFor(userId, spend) },
    }),
  };
  // A turn's end starts its thread's next queued message; a failure there only logs (it stays queued).
  services.afterTurn ??= (ended) => {
    startQueued(services, ended).catch((err) =>
      ended.logger.warn({ err, thread_id: ended.threadId }, "could not start the next queued message"),
    );
  };
  return services;
}
