import { resolveToolPolicy, type ToolPolicy, type ToolPolicyConfig } from "./tool-policy.js";
import { overridesFor, spendLimitsFor, type ToolPolicyFile } from "./tool-policy-file.js";

/** Past this many users the cache starts over (a policy is cheap to resolve; memory is bounded). */
const CACHE_LIMIT = 10_000;

/**
 * Every user's tool policy: the environment's defaults (TOOL_*), with TOOL_POLICY_FILE's entries for
 * the user and their groups applied. `replace` swaps the file (SIGHUP) for every later turn.
 */
export class ToolPolicies {
  private readonly cache = new Map<string, ToolPolicy>();
  private readonly defaults: ToolPolicy;

  constructor(
    private readonly config: Partial<ToolPolicyConfig> = {},
    private file: ToolPolicyFile = {},
  ) {
    this.defaults = resolveToolPolicy(config);
  }

  /** The policy of a user's turns. */
  policyFor(userId: string): ToolPolicy {
    if (this.file.groups === undefined && this.file.users === undefined) return this.defaults;
    let policy = this.cache.get(userId);
    if (!policy) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      policy = resolveToolPolicy(this.config, overridesFor(this.file, userId));
      this.cache.set(userId, policy);
    }
    return policy;
  }

  /** Every MCP server some user's policy may name (the defaults' and the file's), to connect ahead of turns. */
  mcpServers(): string[] {
    const named = new Set(this.defaults.allowedMcpServers);
    for (const entry of [...Object.values(this.file.groups ?? {}), ...Object.values(this.file.users ?? {})]) {
      for (const server of entry.mcp_servers ?? []) named.add(server);
    }
    return [...named];
  }

  /** The user's spend limits: the file's entry for them, else their groups', else the environment's `env`. */
  spendLimitsFor(
    userId: string,
    env: { userDailyUsd?: number | undefined; threadUsd?: number | undefined },
  ): { userDailyUsd?: number | undefined; threadUsd?: number | undefined } {
    return spendLimitsFor(this.file, userId, env);
  }

  /** Takes a new (validated) file: turns that start from now on get its policies. */
  replace(file: ToolPolicyFile): void {
    this.file = file;
    this.cache.clear();
  }
}
