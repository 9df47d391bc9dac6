import {
  type BudgetLimits,
  createDefaultNodeRegistry,
  createProviderRegistry,
  type MediaGenerator,
  type NodeRegistry,
} from "@agentwire-chat/agents";
import { ScriptedProvider, type ScriptedResponder, type ScriptedStep } from "@agentwire-chat/agents/testing";
import type { Repositories } from "@agentwire-chat/storage";
import {
  type ChatServices,
  createChatServices,
  createEditorTools,
  type ToolPolicies,
  type ToolPolicyConfig,
  TurnRegistry,
} from "@agentwire-chat/websocket";
import { startTestServer, type TestServer, type TestServerOptions } from "./harness.js";

export type RouteTestServer = TestServer & {
  provider: ScriptedProvider;
  registry: NodeRegistry;
  chat: ChatServices;
};

export type RouteServerOptions = Omit<TestServerOptions, "limits" | "services" | "handlers"> & {
  /** Turn budget limits (not the socket limits). */
  limits?: Partial<BudgetLimits>;
  /** The workflow route, the workflows API and build_workflow (default true). */
  workflows?: boolean;
  /** The tool policy (e.g. `editorMutate: "ask"` to gate build_workflow). */
  policy?: Partial<ToolPolicyConfig>;
  /** Per-user policies (TOOL_POLICY_FILE's); replaces `policy`. */
  policies?: ToolPolicies;
  media?: { generators: MediaGenerator[]; dataDir: string; maxAssetBytes?: number };
};

/**
 * A real server whose only chat provider is a ScriptedProvider (id `scripted`), with the starter node
 * registry over the same providers, editor tools from createEditorTools, and optional media services.
 */
export async function startRouteServer(
  script: ScriptedStep[] | ScriptedResponder,
  options: RouteServerOptions = {},
): Promise<RouteTestServer> {
  const { limits, workflows: withWorkflows = true, media, policy, policies, ...rest } = options;
  const provider = new ScriptedProvider(script);
  const providers = createProviderRegistry(
    {},
    { extraProviders: [provider], extraDefaultModels: { scripted: "scripted-1" } },
  );
  const registry = createDefaultNodeRegistry({ providers });
  const turns = new TurnRegistry();
  // The repositories exist once the server does; the editor tools read them per turn.
  let repos: Repositories | undefined;
  const chat = createChatServices({
    providers,
    turns,
    defaults: { provider: "scripted" },
    ...(limits && { limits }),
    ...(policy && { policy }),
    ...(policies && { policies }),
    ...(withWorkflows && {
      editorTools: (scope) =>
        createEditorTools({
          registry,
          repos: repos as Repositories,
          providers,
          onSaved: (userId, row, replacing) => chat.openWorkflows.saved(userId, row, replacing),
        })(scope),
    }),
  });
  const server = await startTestServer({
    ...rest,
    services: { chat, ...(withWorkflows && { workflows: { registry } }), ...(media && { media }) },
  });
  repos = server.repos;
  return Object.assign(server, { provider, registry, chat });
}

/** input.text → llm.prompt → output.text, with node ids `in`, `llm`, `out`. */
export const translateGraph = {
  nodes: [
    { id: "in", type: "input.text", properties: {} },
    { id: "llm", type: "llm.prompt", properties: { system: "Translate to French." } },
    { id: "out", type: "output.text", properties: {} },
  ],
  edges: [
    { source: "in", source_port: "text", target: "llm", target_port: "prompt" },
    { source: "llm", source_port: "text", target: "out", target_port: "text" },
  ],
};
