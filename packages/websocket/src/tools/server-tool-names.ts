import {
  askUserTool,
  BUILD_WORKFLOW,
  CREATE_PLAN,
  createMemoryTools,
  createWebFetchTool,
  createWorkspaceTools,
  FINISH_SUBTASK,
  type MemoryStore,
  runSubtaskTool,
  SCRATCHPAD_UPDATE,
  sendUpdateTool,
  WEB_SEARCH,
} from "@agentwire-chat/agents";

// The factories only keep these to use them when a tool runs; nothing here ever runs a tool.
const unusedStore: MemoryStore = { list: async () => [], get: async () => undefined, set: async () => {} };
const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);

/**
 * Every name a server tool has (built-in, conversation, editor, the loop's own), read off the tools and
 * the name constants their definitions use, so a client UI tool can never take one. MCP tools are
 * `server__tool` and client names may not contain `__`. `every-gated-tool.test.ts` checks that every
 * tool a fully wired turn is offered is in here.
 */
export const serverToolNames: ReadonlySet<string> = new Set([
  ...names([askUserTool, runSubtaskTool, sendUpdateTool, createWebFetchTool()]),
  ...names(createMemoryTools(unusedStore, "reserved")),
  ...names(createWorkspaceTools({ workspaceRoot: "/nonexistent", userId: "reserved" })),
  FINISH_SUBTASK,
  CREATE_PLAN,
  SCRATCHPAD_UPDATE,
  WEB_SEARCH,
  BUILD_WORKFLOW,
]);
