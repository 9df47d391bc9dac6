import type { PermissionClass } from "@agentwire/agents";
import { z } from "zod";

/** What the policy does with a class: let it run, ask the user first, or leave it out of the toolbelt. */
export const ClassRule = z.enum(["allow", "ask", "off"]);
export type ClassRule = z.infer<typeof ClassRule>;

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

/** Resolves the policy of a session: the ARCHITECTURE.md table, with the operator's gates applied. */
export function resolveToolPolicy(config: Partial<ToolPolicyConfig> = {}): ToolPolicy {
  const c = ToolPolicyConfig.parse(config);
  const base: Omit<Rules, "editor_mutate"> = {
    safe: "allow",
    knowledge: "allow",
    subagent: "allow",
    network: c.network,
    workspace_write: c.workspaceWrite,
    secrets: c.secrets,
  };
  return {
    rules: {
      thread: { ...base, editor_mutate: "off" },
      editor: { ...base, editor_mutate: c.editorMutate },
    },
    allowedMcpServers: c.allowedMcpServers,
  };
}

/** The rule for one class in one context. */
export function ruleFor(policy: ToolPolicy, context: ContextKind, cls: PermissionClass): ClassRule {
  return policy.rules[context][cls];
}
