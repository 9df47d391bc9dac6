import type { Tool } from "@agentwire-chat/agents";
import type { ChatContext } from "@agentwire-chat/protocol";
import {
  type ClassRule,
  type ClassRules,
  type ContextKind,
  ruleFor,
  type ToolPolicy,
} from "../tools/tool-policy.js";
import type { ContextScope } from "./context-scopes.js";

/** Tool names that only exist with memory enabled. */
const memoryToolNames = new Set(["memory_list", "memory_read", "memory_write"]);

export type ComposeToolbeltInput = {
  chatContext: ChatContext;
  /** The context scope `chatContext.kind` selects; absent: the built-in kind's defaults. */
  scope?: Pick<ContextScope, "base" | "add" | "remove"> & Partial<Pick<ContextScope, "classes">>;
  policy: ToolPolicy;
  /** Tools the server registers for this user (memory, files, web, MCP, ask_user, ...). */
  serverTools: readonly Tool[];
  /** Editor-only tools (build_workflow); only offered in editor context with a node registry. */
  editorTools?: readonly Tool[];
  /** Proxies of the client's announced UI tools; editor context only. */
  clientTools?: readonly Tool[];
  hasNodeRegistry: boolean;
  memoryEnabled: boolean;
  warn?: (message: string) => void;
};

export type ToolbeltEntry = { tool: Tool; needsApproval: boolean };

/**
 * The toolbelt of one turn: server-registered ∩ policy-allowed ∩ context-unlocked.
 * Tools whose class the policy gates with `ask` are kept and marked for approval. A scope's `classes`
 * replace its base kind's rules; its `add` names tools to offer although their class is off on the
 * base (editor-only tools on a thread base too), its `remove` takes tools out. A class the user's
 * policy locks (TOOL_POLICY_FILE's `off`) stays off whatever the scope says.
 */
export function composeToolbelt(input: ComposeToolbeltInput): ToolbeltEntry[] {
  const kind: ContextKind = input.scope?.base ?? (input.chatContext.kind === "editor" ? "editor" : "thread");
  const add = new Set(input.scope?.add);
  const remove = new Set(input.scope?.remove);
  const candidates: Tool[] = input.serverTools.filter(
    (t) => input.memoryEnabled || !memoryToolNames.has(t.name),
  );
  const editorOnly = [...(input.editorTools ?? []), ...(input.clientTools ?? [])];
  if (kind === "editor") {
    if (input.hasNodeRegistry) candidates.push(...editorOnly);
    else
      input.warn?.("editor context without a node registry: build_workflow and client UI tools are omitted");
  } else if (input.hasNodeRegistry) {
    candidates.push(...editorOnly.filter((t) => add.has(t.name)));
  }
  const seen = new Set<string>();
  const belt: ToolbeltEntry[] = [];
  for (const tool of candidates) {
    // A client tool may not shadow a server tool: the first registration of a name wins.
    if (seen.has(tool.name) || remove.has(tool.name)) continue;
    const rule = ruleOf(tool, input.policy, kind, input.scope?.classes ?? {}, add);
    if (rule === "off") continue;
    seen.add(tool.name);
    belt.push({ tool, needsApproval: rule === "ask" });
  }
  return belt;
}

/**
 * One tool's rule in the scope. A tool the scope adds by name whose class is off on the base runs
 * under the editor kind's rule for it (the context editor-only tools are made for), or with the
 * user's approval when the policy turns the class off there too: naming it is the operator's choice,
 * approving each call the user's.
 */
function ruleOf(
  tool: Tool,
  policy: ToolPolicy,
  kind: ContextKind,
  classes: ClassRules,
  add: ReadonlySet<string>,
): ClassRule {
  const cls = tool.permissionClass;
  if (policy.locked.includes(cls)) return "off";
  const scoped = cls === "safe" ? undefined : classes[cls];
  if (scoped !== undefined) return scoped;
  const base = ruleFor(policy, kind, cls);
  if (base !== "off" || !add.has(tool.name)) return base;
  const editor = ruleFor(policy, "editor", cls);
  return editor === "off" ? "ask" : editor;
}
