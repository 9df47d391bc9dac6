/**
 * The groups of the configuration reference, in the order docs/configuration.md and `--help` show
 * them. A variable's group is in its schema's `.meta()` (the agents package's schemas name theirs as
 * plain strings, since it cannot import this).
 */
export const configGroups = [
  { id: "server", title: "Server" },
  { id: "auth", title: "Authentication" },
  { id: "providers", title: "Models and providers" },
  { id: "context", title: "Context" },
  { id: "tools", title: "Tools, policy, MCP, workflows" },
  { id: "turns", title: "Turns" },
  { id: "cluster", title: "Several instances" },
  { id: "limits", title: "Limits" },
  { id: "observability", title: "Logs, metrics and traces" },
] as const;

export type ConfigGroup = (typeof configGroups)[number]["id"];

/**
 * What the reference shows of one variable. `type` overrides the type read from the zod schema
 * where the schema cannot tell (a list parsed by a transform, a URL checked by a refinement);
 * `computed` marks a default worked out at start-up from other variables (the description says how).
 * A type alias, not an interface: zod's `.meta()` takes an object with an index signature.
 */
export type ConfigDoc = {
  group: ConfigGroup;
  description: string;
  type?: string;
  computed?: boolean;
};

/** The `.meta()` of one variable: its group and description, typed so a group cannot be misspelt. */
export function doc(
  group: ConfigGroup,
  description: string,
  extra: Omit<ConfigDoc, "group" | "description"> = {},
): ConfigDoc {
  return { group, description, ...extra };
}
