import { ok, type PermissionClass, permissionClasses, type Tool } from "@agentwire-chat/agents";
import { describe, expect, it } from "vitest";
import { composeToolbelt } from "../../src/chat/compose-toolbelt.js";
import { resolveToolPolicy } from "../../src/tools/tool-policy.js";

const tool = (name: string, permissionClass: PermissionClass): Tool => ({
  name,
  description: name,
  inputSchema: { type: "object" },
  permissionClass,
  validate: (a) => ({ ok: true, value: a }),
  execute: async () => ok("done"),
});
const oneOfEach = permissionClasses.map((c) => tool(`t_${c}`, c));
const names = (belt: { tool: Tool }[]) => belt.map((e) => e.tool.name).sort();
const thread = { kind: "thread" } as const;
const editor = { kind: "editor", workflow_id: "w1" } as const;

describe("composeToolbelt: the policy table, cell by cell", () => {
  const expected: Record<PermissionClass, { thread: boolean; editor: boolean }> = {
    safe: { thread: true, editor: true },
    knowledge: { thread: true, editor: true },
    subagent: { thread: true, editor: true },
    network: { thread: true, editor: true },
    workspace_write: { thread: true, editor: true },
    editor_mutate: { thread: false, editor: true },
    secrets: { thread: false, editor: false },
  };
  for (const cls of permissionClasses) {
    for (const ctx of [thread, editor]) {
      const on = expected[cls][ctx.kind];
      it(`${cls} in ${ctx.kind} context is ${on ? "on" : "off"}`, () => {
        const belt = composeToolbelt({
          chatContext: ctx,
          policy: resolveToolPolicy(),
          serverTools: oneOfEach,
          hasNodeRegistry: true,
          memoryEnabled: true,
        });
        expect(names(belt).includes(`t_${cls}`)).toBe(on);
      });
    }
  }

  it("turns secrets on only when the operator opts in", () => {
    const belt = composeToolbelt({
      chatContext: thread,
      policy: resolveToolPolicy({ secrets: "allow" }),
      serverTools: oneOfEach,
      hasNodeRegistry: false,
      memoryEnabled: true,
    });
    expect(names(belt)).toContain("t_secrets");
  });

  it("marks classes the policy gates with ask", () => {
    const belt = composeToolbelt({
      chatContext: editor,
      policy: resolveToolPolicy({ workspaceWrite: "ask", editorMutate: "ask" }),
      serverTools: oneOfEach,
      hasNodeRegistry: true,
      memoryEnabled: true,
    });
    const gated = belt.filter((e) => e.needsApproval).map((e) => e.tool.name);
    expect(gated.sort()).toEqual(["t_editor_mutate", "t_workspace_write"]);
  });
});

describe("composeToolbelt: context unlocks", () => {
  const build = tool("build_workflow", "editor_mutate");
  const ui = tool("ui_notify", "editor_mutate");

  it("offers build_workflow and client UI tools only in editor context with a registry", () => {
    const base = {
      policy: resolveToolPolicy(),
      serverTools: [tool("read_file", "safe")],
      memoryEnabled: true,
    };
    const inEditor = composeToolbelt({
      ...base,
      chatContext: editor,
      editorTools: [build],
      clientTools: [ui],
      hasNodeRegistry: true,
    });
    expect(names(inEditor)).toEqual(["build_workflow", "read_file", "ui_notify"]);
    const inThread = composeToolbelt({
      ...base,
      chatContext: thread,
      editorTools: [build],
      clientTools: [ui],
      hasNodeRegistry: true,
    });
    expect(names(inThread)).toEqual(["read_file"]);
  });

  it("omits them and warns in editor context without a registry", () => {
    const warnings: string[] = [];
    const belt = composeToolbelt({
      chatContext: editor,
      policy: resolveToolPolicy(),
      serverTools: [],
      editorTools: [build],
      clientTools: [ui],
      hasNodeRegistry: false,
      memoryEnabled: true,
      warn: (m) => warnings.push(m),
    });
    expect(belt).toEqual([]);
    expect(warnings).toHaveLength(1);
  });

  it("removes the memory tools when memory is disabled", () => {
    const memory = ["memory_list", "memory_read", "memory_write"].map((n) => tool(n, "knowledge"));
    const belt = composeToolbelt({
      chatContext: thread,
      policy: resolveToolPolicy(),
      serverTools: [...memory, tool("read_file", "safe")],
      hasNodeRegistry: false,
      memoryEnabled: false,
    });
    expect(names(belt)).toEqual(["read_file"]);
  });

  it("never lets a client tool shadow a server tool of the same name", () => {
    const serverRead = tool("read_file", "safe");
    const belt = composeToolbelt({
      chatContext: editor,
      policy: resolveToolPolicy(),
      serverTools: [serverRead],
      clientTools: [tool("read_file", "editor_mutate")],
      hasNodeRegistry: true,
      memoryEnabled: true,
    });
    expect(belt).toHaveLength(1);
    expect(belt[0]?.tool).toBe(serverRead);
  });
});

describe("composeToolbelt: a scope's classes and tools.add against the user's policy", () => {
  const input = (
    scope: { add?: string[]; classes?: Record<string, "allow" | "ask" | "off"> },
    policy = resolveToolPolicy(),
  ) => ({
    chatContext: thread,
    scope: { base: "thread" as const, add: scope.add ?? [], remove: [], classes: scope.classes ?? {} },
    policy,
    serverTools: oneOfEach,
    editorTools: [tool("build_workflow", "editor_mutate")],
    hasNodeRegistry: true,
    memoryEnabled: true,
  });
  const rules = (belt: ReturnType<typeof composeToolbelt>) =>
    Object.fromEntries(belt.map((e) => [e.tool.name, e.needsApproval ? "ask" : "allow"]));

  it("classes replace the base's rules: secrets on, network off", () => {
    const belt = rules(composeToolbelt(input({ classes: { secrets: "allow", network: "off" } })));
    expect(belt.t_secrets).toBe("allow");
    expect(belt.t_network).toBeUndefined();
  });

  it("an added tool whose class is off on the base takes the editor's rule, or ask when that is off too", () => {
    const belt = rules(composeToolbelt(input({ add: ["build_workflow", "t_secrets"] })));
    expect(belt.build_workflow).toBe("allow");
    expect(belt.t_secrets).toBe("ask");
    const gated = rules(
      composeToolbelt(input({ add: ["build_workflow"] }, resolveToolPolicy({ editorMutate: "ask" }))),
    );
    expect(gated.build_workflow).toBe("ask");
  });

  it("a class the user's policy file turns off (locked) stays off whatever the scope says", () => {
    const policy = resolveToolPolicy({}, { classes: { secrets: "off", editor_mutate: "off" } });
    expect(policy.locked).toEqual(["secrets", "editor_mutate"]);
    const belt = rules(
      composeToolbelt(
        input(
          { add: ["build_workflow", "t_secrets"], classes: { secrets: "allow", editor_mutate: "allow" } },
          policy,
        ),
      ),
    );
    expect(belt.build_workflow).toBeUndefined();
    expect(belt.t_secrets).toBeUndefined();
    expect(belt.t_safe).toBe("allow");
  });
});
