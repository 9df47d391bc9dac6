import type { PermissionClass } from "@agentwire-chat/agents";
import { z } from "zod";

/** What the policy does with a class: let it run, ask the user first, or leave it out of the toolbelt. */
export const ClassRule = z.enum(["allow", "ask", "off"]);
export type ClassRule = z.infer<typeof ClassRule>;

/**
 * Rules an operator sets for classes, per user, group (TOOL_POLICY_FILE) or context scope. `safe` is
 * not among them: it always runs (ask_user, finish_subtask, send_update…).
 */
export const ClassRules = z.strictObject({
  knowledge: ClassRule.optional(),
  network: ClassRule.optional(),
  workspace_write: ClassRule.optional(),
  editor_mutate: ClassRule.optional(),
  subagent: ClassRule.optional(),
  secrets: ClassRule.optional(),
});
export type ClassRules = z.infer<typeof ClassRules>;

/** The built-in kinds; an operator scope names which one its rules start from. */
export type ContextKind = "thread" | "editor";
type Rules = Record<PermissionClass, ClassRule>;

/**
 * The server-side tool policy of a session: per context kind, a rule per permission class, and the
 * MCP servers a user's turns may use. The client never sends a tool list.
 */
export type ToolPolicy = {
  rules: Record<ContextKind, Rules>;
  allowedMcpServers: readonly string[];
  /**
   * Classes the operator turned off for this user in TOOL_POLICY_FILE: final, no context scope turns
   * them back on (the environment's defaults, by contrast, are what a scope may change).
   */
  locked: readonly PermissionClass[];
};

/** Operator settings the policy is resolved from. */
export const ToolPolicyConfig = z.object({
  /** Opt in to the `secrets` class; off by default everywhere. */
  secrets: ClassRule.default("off"),
  workspaceWrite: z.enum(["allow", "ask"]).default("allow"),
  editorMutate: z.enum(["allow", "ask"]).default("allow"),
  network: z.enum(["allow", "ask", "off"]).default("allow"),
  allowedMcpServers: z.array(z.string()).default([]),
});
export type ToolPolicyConfig = z.infer<typeof ToolPolicyConfig>;

/** Per-user changes on top of the operator's defaults (TOOL_POLICY_FILE's entries, merged). */
export type PolicyOverrides = {
  classes?: ClassRules;
  allowedMcpServers?: readonly string[];
};

/**
 * Resolves the policy of a session: the ARCHITECTURE.md table, with the operator's gates applied,
 * then a user's overrides. `editor_mutate` stays off in the thread kind whatever they say: that rule is
 * the thread context's, and a scope's `tools.add` or `classes` is how a thread-based scope lifts it.
 */
export function resolveToolPolicy(
  config: Partial<ToolPolicyConfig> = {},
  overrides: PolicyOverrides = {},
): ToolPolicy {
  const c = ToolPolicyConfig.parse(config);
  const base: Omit<Rules, "editor_mutate"> = {
    safe: "allow",
    knowledge: "allow",
    subagent: "allow",
    network: c.network,
    workspace_write: c.workspaceWrite,
    secrets: c.secrets,
  };
  const classes: ClassRules = overrides.classes ?? {};
  const { editor_mutate: editorMutate, ...shared } = classes;
  const locked = (Object.keys(classes) as (keyof ClassRules)[]).filter((cls) => classes[cls] === "off");
  return {
    rules: {
      thread: { ...base, ...shared, editor_mutate: "off" },
      editor: { ...base, ...shared, editor_mutate: editorMutate ?? c.editorMutate },
    },
    allowedMcpServers: overrides.allowedMcpServers ?? c.allowedMcpServers,
    locked,
  };
}

/** The rule for one class in one context. */
export function ruleFor(policy: ToolPolicy, context: ContextKind, cls: PermissionClass): ClassRule {
  return policy.rules[context][cls];
}
