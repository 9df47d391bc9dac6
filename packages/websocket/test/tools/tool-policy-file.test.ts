import { describe, expect, it } from "vitest";
import {
  parseToolPolicyFile,
  resolveToolPolicy,
  ToolPolicies,
  type ToolPolicyFile,
} from "../../src/index.js";

const file: ToolPolicyFile = {
  groups: {
    analysts: { members: ["alice", "bob"], classes: { secrets: "ask" }, mcp_servers: ["github"] },
    contractors: { members: ["bob", "carol"], classes: { network: "off" }, mcp_servers: ["jira"] },
  },
  users: {
    alice: { classes: { secrets: "allow" } },
    carol: { mcp_servers: [] },
  },
};

describe("TOOL_POLICY_FILE: per-user policies", () => {
  const policies = new ToolPolicies({ allowedMcpServers: ["docs"] }, file);

  it("a user's own entry wins over their groups; groups' MCP servers add up; others keep the defaults", () => {
    const alice = policies.policyFor("alice");
    expect(alice.rules.thread.secrets).toBe("allow");
    expect(alice.allowedMcpServers).toEqual(["github"]);
    const bob = policies.policyFor("bob");
    expect(bob.rules.thread.secrets).toBe("ask");
    expect(bob.rules.thread.network).toBe("off");
    expect(bob.rules.editor.network).toBe("off");
    expect(bob.locked).toEqual(["network"]);
    expect(bob.allowedMcpServers).toEqual(["github", "jira"]);
    expect(policies.policyFor("carol").allowedMcpServers).toEqual([]);
    expect(policies.policyFor("dave")).toEqual(resolveToolPolicy({ allowedMcpServers: ["docs"] }));
  });

  it("names every MCP server some policy may use, so they connect ahead of the users' turns", () => {
    expect(policies.mcpServers().sort()).toEqual(["docs", "github", "jira"]);
    const plain = new ToolPolicies({ allowedMcpServers: ["docs"] });
    expect(plain.mcpServers()).toEqual(["docs"]);
    plain.replace({ users: { erin: { mcp_servers: ["wiki"] } } });
    expect(plain.mcpServers().sort()).toEqual(["docs", "wiki"]);
  });

  it("without a file every user gets exactly today's policy; replace swaps the file for later calls", () => {
    const plain = new ToolPolicies({});
    expect(plain.policyFor("alice")).toEqual(resolveToolPolicy());
    expect(plain.policyFor("alice").locked).toEqual([]);
    plain.replace({ users: { alice: { classes: { network: "off" } } } });
    expect(plain.policyFor("alice").rules.thread.network).toBe("off");
    expect(plain.policyFor("bob").rules.thread.network).toBe("allow");
    plain.replace({});
    expect(plain.policyFor("alice").rules.thread.network).toBe("allow");
  });

  it("editor_mutate set for a user changes the editor only: the thread context keeps it off", () => {
    const p = new ToolPolicies({}, { users: { u: { classes: { editor_mutate: "ask" } } } }).policyFor("u");
    expect(p.rules.editor.editor_mutate).toBe("ask");
    expect(p.rules.thread.editor_mutate).toBe("off");
  });

  it("a bad file is refused with the user or group and the field named", () => {
    const bad = parseToolPolicyFile({
      groups: { ops: { members: [], classes: { network: "maybe" } } },
      users: { alice: { classes: { safe: "off" }, mcp: ["x"] } },
      extra: true,
    });
    expect(bad.ok).toBe(false);
    const message = bad.ok ? "" : bad.message;
    expect(message).toContain('group "ops": members:');
    expect(message).toContain('group "ops": classes.network:');
    expect(message).toMatch(/user "alice": classes: .*safe/);
    expect(message).toMatch(/user "alice": \(entry\): .*mcp/);
    expect(message).toMatch(/\(file\): .*extra/);
  });
});
