import { z } from "zod";
import { ClassRules, type PolicyOverrides } from "./tool-policy.js";

const userId = z.string().min(1).max(200);
const McpServers = z.array(z.string().min(1).max(100)).max(100);

const Usd = z.number().nonnegative().max(1_000_000);

const UserEntry = z.strictObject({
  classes: ClassRules.optional(),
  mcp_servers: McpServers.optional(),
  /** Replaces SPEND_LIMIT_USER_DAILY_USD for the user (or the group's members). */
  spend_limit_daily_usd: Usd.optional(),
  /** Replaces SPEND_LIMIT_THREAD_USD for the user (or the group's members). */
  spend_limit_thread_usd: Usd.optional(),
});
const GroupEntry = UserEntry.extend({ members: z.array(userId).min(1).max(100_000) });

/**
 * The file TOOL_POLICY_FILE names: tool classes, MCP servers and spend limits per group (its members
 * listed by user id) and per user, on top of the environment's TOOL_* and SPEND_LIMIT_* defaults.
 */
export const ToolPolicyFile = z.strictObject({
  groups: z.record(z.string().min(1).max(100), GroupEntry).optional(),
  users: z.record(userId, UserEntry).optional(),
});
export type ToolPolicyFile = z.infer<typeof ToolPolicyFile>;

/** Validates a parsed TOOL_POLICY_FILE; the message names the user or group and the field of each issue. */
export function parseToolPolicyFile(
  json: unknown,
): { ok: true; value: ToolPolicyFile } | { ok: false; message: string } {
  const parsed = ToolPolicyFile.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, message: parsed.error.issues.map(describeIssue).join("; ") };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const [section, name, ...field] = issue.path.map(String);
  const who = section === "users" ? "user" : section === "groups" ? "group" : undefined;
  if (who === undefined || name === undefined)
    return `${issue.path.map(String).join(".") || "(file)"}: ${issue.message}`;
  return `${who} ${JSON.stringify(name)}: ${field.join(".") || "(entry)"}: ${issue.message}`;
}

/**
 * A user's overrides from the file: the groups that list them in file order (a later group's class
 * wins; their MCP servers add up), then the user's own entry (its classes win, its `mcp_servers`
 * replaces the groups').
 */
export function overridesFor(file: ToolPolicyFile, user: string): PolicyOverrides {
  const classes: ClassRules = {};
  let servers: string[] | undefined;
  for (const group of Object.values(file.groups ?? {})) {
    if (!group.members.includes(user)) continue;
    Object.assign(classes, group.classes);
    if (group.mcp_servers) servers = [...new Set([...(servers ?? []), ...group.mcp_servers])];
  }
  const own = Object.hasOwn(file.users ?? {}, user) ? file.users?.[user] : undefined;
  Object.assign(classes, own?.classes);
  if (own?.mcp_servers) servers = own.mcp_servers;
  return { classes, ...(servers && { allowedMcpServers: servers }) };
}

/** A user's spend limits from the file, in USD: their own entry's, else the last group's that sets one, else `env`'s. */
export function spendLimitsFor(
  file: ToolPolicyFile,
  user: string,
  env: { userDailyUsd?: number | undefined; threadUsd?: number | undefined },
): { userDailyUsd?: number | undefined; threadUsd?: number | undefined } {
  let { userDailyUsd, threadUsd } = env;
  const own = Object.hasOwn(file.users ?? {}, user) ? file.users?.[user] : undefined;
  const entries = Object.values(file.groups ?? {}).filter((group) => group.members.includes(user));
  for (const entry of own ? [...entries, own] : entries) {
    userDailyUsd = entry.spend_limit_daily_usd ?? userDailyUsd;
    threadUsd = entry.spend_limit_thread_usd ?? threadUsd;
  }
  return { userDailyUsd, threadUsd };
}
