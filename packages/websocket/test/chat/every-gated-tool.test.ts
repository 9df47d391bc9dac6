import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  createDefaultNodeRegistry,
  createProviderRegistry,
  InMemoryPinStore,
  McpManager,
  type PermissionClass,
  type ProviderRequest,
  parseMcpServersConfig,
  permissionClasses,
} from "@agentwire-chat/agents";
import { ScriptedProvider, type ScriptedStep } from "@agentwire-chat/agents/testing";
import { contentText, type ServerFrame } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";
import { expectWellFormedTurn, isDone } from "@agentwire-chat/testkit/chat-harness";
import { mcpEffectServer } from "@agentwire-chat/testkit/fixtures";
import { startTestServer, type TestClient, type TestServer } from "@agentwire-chat/testkit/harness";
import { translateGraph } from "@agentwire-chat/testkit/route-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turnToolbelt } from "../../src/chat/turn-toolbelt.js";
import {
  type ChatServices,
  createBuiltinServerTools,
  createChatServices,
  createEditorTools,
  resolveToolPolicy,
  ruleFor,
  serverToolNames,
  ToolPolicyConfig,
  UIToolProxy,
} from "../../src/index.js";
import { tempDir } from "../tools/tool-helpers.js";
import { expectStartsEnded, storedMessages } from "./turn-helpers.js";

// Issue 23: an approved call runs exactly as the same call runs ungated (context, lock, permit, budget,
// tree, ledger), for EVERY tool the server can gate, not only client UI tools. The servers here are
// wired as apps/server wires them (built-in tools with web_search and MCP, editor tools, client UI
// tools); which tools are gated is read from that wiring, so a newly gated tool fails the first test
// until it has a case below.

const MCP_FIXTURE = mcpEffectServer;
const USER = "local"; // auth none

/** The policy settings an operator can set to `ask`, read from the schema: every gate there is. */
const gateSettings = (Object.keys(ToolPolicyConfig.shape) as (keyof ToolPolicyConfig)[]).filter(
  (key) => ToolPolicyConfig.shape[key].safeParse("ask").success,
);
type Rule = "allow" | "ask";
const policyOf = (rule: Rule) => Object.fromEntries(gateSettings.map((k) => [k, rule]));
const contexts = ["thread", "editor"] as const;
/** The permission classes some context gates when every gate is `ask`. */
const gatedClasses: PermissionClass[] = permissionClasses.filter((cls) =>
  contexts.some((kind) => ruleFor(resolveToolPolicy(policyOf("ask")), kind, cls) === "ask"),
);
/** One MCP server per gated class (`permission_class` in the operator's MCP config), named for it. */
const mcpServerOf = (cls: PermissionClass) => cls;

const notifySpec = {
  name: "ui_notify",
  description: "Show a notification in the editor.",
  input_schema: {
    type: "object",
    properties: { message: { type: "string", maxLength: 200 } },
    required: ["message"],
    additionalProperties: false,
  },
};

const fence = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;
const CALL_ID = "call_gated";

/**
 * The model: the user message is the one call to make (JSON); build_workflow's planning call (no
 * tools offered) gets a valid graph; once the result is in, it answers with it.
 */
function model(request: ProviderRequest): ScriptedStep {
  if (request.tools.length === 0) return { text: fence(translateGraph) };
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: `done: ${last.content}` };
  if (last?.role !== "user") throw new Error(`unexpected request ending in ${last?.role}`);
  const call = JSON.parse(contentText(last.content)) as { name: string; args: object };
  return { toolCalls: [{ id: CALL_ID, name: call.name, args: call.args }] };
}

/** A web page and a SearXNG instance on loopback, every request recorded. */
async function webStandIn() {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push(url.pathname);
    if (url.pathname === "/search") {
      const q = url.searchParams.get("q");
      const hit = { title: `About ${q}`, url: "https://agentwire.example/", content: `All about ${q}` };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results: [hit] }));
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" }).end("the page's text");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    url: `http://${host}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let dir: ReturnType<typeof tempDir>;
let web: Awaited<ReturnType<typeof webStandIn>>;
let mcp: McpManager;
const effectFile = (cls: PermissionClass) => join(dir.path, `${cls}.effects`);

type GatedServer = TestServer & { chat: ChatServices; uiTools: UIToolProxy; workspace: string };
const servers: Partial<Record<Rule, GatedServer>> = {};

/** A server wired like apps/server, with every gate set to `rule`. */
async function startGatedServer(rule: Rule): Promise<GatedServer> {
  const provider = new ScriptedProvider(model);
  const providers = createProviderRegistry(
    {},
    { extraProviders: [provider], extraDefaultModels: { scripted: "scripted-1" } },
  );
  const registry = createDefaultNodeRegistry({ providers });
  const uiTools = new UIToolProxy();
  const workspace = join(dir.path, `ws-${rule}`);
  // The repositories exist once the server does; the tools read them per turn.
  let repos: Repositories | undefined;
  const chat: ChatServices = createChatServices({
    providers,
    defaults: { provider: "scripted" },
    policy: { ...policyOf(rule), allowedMcpServers: gatedClasses.map(mcpServerOf) },
    editorTools: (scope) => createEditorTools({ registry, repos: repos as Repositories, providers })(scope),
    serverTools: (scope) =>
      createBuiltinServerTools({
        repos: repos as Repositories,
        workspaceRoot: workspace,
        webFetch: { allowHosts: [web.host] },
        webSearch: { backend: { backend: "searxng", url: web.url } },
        mcp,
        policyFor: (userId) => chat.policyFor(userId),
      })(scope),
    clientTools: (scope) => uiTools.clientTools(scope),
  });
  const server = await startTestServer({
    services: { chat, uiTools, workflows: { registry } },
  });
  repos = server.repos;
  return Object.assign(server, { chat, uiTools, workspace });
}

beforeAll(async () => {
  dir = tempDir("agentwire-gated-");
  web = await webStandIn();
  // As an operator's MCP_CONFIG_PATH file would say it, through the same parser.
  const config = parseMcpServersConfig({
    servers: Object.fromEntries(
      gatedClasses.map((cls) => [
        mcpServerOf(cls),
        {
          command: process.execPath,
          args: [MCP_FIXTURE],
          env: { EFFECT_FILE: effectFile(cls) },
          permission_class: cls,
        },
      ]),
    ),
  });
  if (!config.ok) throw new Error(config.reason);
  mcp = new McpManager({ config: config.value, pins: new InMemoryPinStore() });
  // As at start-up: the allowed servers connect in the background; turns are offered them once up.
  mcp.connect(gatedClasses.map(mcpServerOf));
  await mcp.settled();
  servers.allow = await startGatedServer("allow");
  servers.ask = await startGatedServer("ask");
});
afterAll(async () => {
  await servers.allow?.close();
  await servers.ask?.close();
  await mcp?.close();
  await web?.close();
  dir?.remove();
});

function serverOf(rule: Rule): GatedServer {
  const s = servers[rule];
  if (!s) throw new Error(`no ${rule} server`);
  return s;
}

/** A fresh socket that announced the editor's UI tools (as the web editor does on connect). */
async function editorSocket(server: GatedServer): Promise<TestClient> {
  const client = await server.connect();
  client.command("client_tools_manifest", { tools: [notifySpec] });
  await client.ping();
  return client;
}

/**
 * What a case's turn runs in and against. The stand-ins and MCP servers are shared by both servers, so
 * their effects are read from where they stood when the turn began.
 */
type Env = {
  server: GatedServer;
  client: TestClient;
  workflowId: string;
  webMark: number;
  recordMarks: Partial<Record<PermissionClass, number>>;
};

type GatedCase = {
  /** The gated tool, or for families of tools one of them: `mcp:<class>`, `client:<name>` (see kindOf). */
  kind: string;
  context: "thread" | "editor";
  /** The call the model makes (read when the turn starts: the stand-ins' addresses are known then). */
  call: () => { name: string; args: Record<string, unknown> };
  /** Prepares what the call acts on (the file delete_file removes). */
  arrange?: (env: Env) => void;
  /** The call's effect outside the turn, read before and after it. */
  effect: (env: Env) => unknown;
  /** The result of the call as the model reads it (the tool message's content). */
  result: RegExp;
  /** Model calls the tool makes itself, nested under the call (build_workflow plans with one). */
  innerModelCalls?: number;
};

const wsFile = (env: Env, name: string) => join(env.server.workspace, USER, name);
const readOrNull = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : null);
const lines = (path: string) => (readOrNull(path) ?? "").split("\n").filter(Boolean);

const cases: GatedCase[] = [
  {
    kind: "write_file",
    context: "thread",
    call: () => ({ name: "write_file", args: { path: "gated/written.txt", content: "approved words" } }),
    effect: (env) => readOrNull(wsFile(env, "gated/written.txt")),
    result: /"path":"gated\/written\.txt"/,
  },
  {
    kind: "delete_file",
    context: "thread",
    call: () => ({ name: "delete_file", args: { path: "gated/doomed.txt" } }),
    arrange: (env) => {
      mkdirSync(join(env.server.workspace, USER, "gated"), { recursive: true });
      writeFileSync(wsFile(env, "gated/doomed.txt"), "doomed");
    },
    effect: (env) => existsSync(wsFile(env, "gated/doomed.txt")),
    result: /"deleted":true/,
  },
  {
    kind: "web_fetch",
    context: "thread",
    call: () => ({ name: "web_fetch", args: { url: `${web.url}/page` } }),
    effect: (env) => web.requests.slice(env.webMark),
    result: /the page's text/,
  },
  {
    kind: "web_search",
    context: "thread",
    call: () => ({ name: "web_search", args: { query: "gates" } }),
    effect: (env) => web.requests.slice(env.webMark),
    result: /All about gates/,
  },
  {
    kind: "build_workflow",
    context: "editor",
    call: () => ({ name: "build_workflow", args: { objective: "Translate to French" } }),
    effect: async (env) =>
      (
        (await env.server.repos.workflows.get(USER, env.workflowId))?.graph as { nodes: { id: string }[] }
      ).nodes.map((n) => n.id),
    result: /"changes"/,
    innerModelCalls: 1,
  },
  {
    kind: "client:ui_notify",
    context: "editor",
    call: () => ({ name: "ui_notify", args: { message: "may I?" } }),
    effect: (env) => env.client.received.filter((f) => f.type === "tool_call").length,
    result: /^shown$/,
  },
  ...gatedClasses.map(
    (cls): GatedCase => ({
      kind: `mcp:${cls}`,
      context: ruleFor(resolveToolPolicy(policyOf("ask")), "thread", cls) === "ask" ? "thread" : "editor",
      call: () => ({ name: `${mcpServerOf(cls)}__record`, args: { text: `a ${cls} call` } }),
      effect: (env) => lines(effectFile(cls)).slice(env.recordMarks[cls]),
      result: new RegExp(`recorded: a ${cls} call`),
    }),
  ),
];

/** How a gated tool is covered: a tool of an MCP server by its class, a client tool by its name. */
function kindOf(name: string, cls: PermissionClass, clientTools: ReadonlySet<string>): string {
  if (name.includes("__")) return `mcp:${cls}`;
  if (clientTools.has(name)) return `client:${name}`;
  return name;
}

describe("the gated tools", () => {
  it("are exactly the cases below: every tool the production wiring gates, in either context", async () => {
    const server = serverOf("ask");
    const client = await editorSocket(server);
    const [connectionId] = server.uiTools.connectionIds();
    const workflow = await server.repos.workflows.create(USER, "Draft", { nodes: [], edges: [] });
    const gated = new Set<string>();
    for (const kind of contexts) {
      const belt = await turnToolbelt(
        server.chat,
        {
          userId: USER,
          threadId: "gated-listing",
          chatContext: kind === "editor" ? { kind, workflow_id: workflow.id } : { kind },
          connectionId: connectionId as string,
          provider: "scripted",
          model: "scripted-1",
        },
        true,
        server.app.log,
        server.repos,
      );
      // A gated tool is the one the toolbelt wrapped for approval (approval-gate.ts).
      for (const tool of belt.tools) {
        const unwrapped = belt.unwrapped.get(tool.name);
        if (unwrapped && unwrapped !== tool)
          gated.add(kindOf(tool.name, unwrapped.permissionClass, new Set([notifySpec.name])));
      }
    }
    await client.close();
    expect([...gated].sort()).toEqual(cases.map((c) => c.kind).sort());
    expect(gatedClasses).toEqual(["network", "workspace_write", "editor_mutate", "secrets"]);
  });
});

describe("the names client UI tools may not take", () => {
  it("hold every server tool a fully wired turn is offered, in either context", async () => {
    const server = serverOf("allow");
    const client = await editorSocket(server);
    const [connectionId] = server.uiTools.connectionIds();
    const workflow = await server.repos.workflows.create(USER, "Draft", { nodes: [], edges: [] });
    const offered = new Set<string>();
    for (const kind of contexts) {
      const belt = await turnToolbelt(
        server.chat,
        {
          userId: USER,
          threadId: "reserved-listing",
          chatContext: kind === "editor" ? { kind, workflow_id: workflow.id } : { kind },
          connectionId: connectionId as string,
          provider: "scripted",
          model: "scripted-1",
        },
        true,
        server.app.log,
        server.repos,
      );
      for (const tool of belt.tools) offered.add(tool.name);
    }
    await client.close();
    const serverTools = [...offered].filter((name) => name !== notifySpec.name && !name.includes("__"));
    // The ones a hand-written list once missed are offered here, so this test covers them.
    expect(serverTools).toEqual(expect.arrayContaining(["send_update", "create_plan", "scratchpad_update"]));
    expect(serverTools.filter((name) => !serverToolNames.has(name))).toEqual([]);
    expect(serverToolNames.has("finish_subtask")).toBe(true);
  });
});

type Decision = "allow" | "deny";

/** One turn in which the model calls the case's tool: ungated (`allow` server), or gated and answered. */
async function runTurn(c: GatedCase, rule: Rule, decision: Decision = "allow") {
  const server = serverOf(rule);
  const client = await editorSocket(server);
  const workflow = await server.repos.workflows.create(USER, "Draft", { nodes: [], edges: [] });
  const env: Env = {
    server,
    client,
    workflowId: workflow.id,
    webMark: web.requests.length,
    recordMarks: Object.fromEntries(gatedClasses.map((cls) => [cls, lines(effectFile(cls)).length])),
  };
  c.arrange?.(env);
  const before = await c.effect(env);
  const call = c.call();
  const chatContext =
    c.context === "editor" ? { kind: "editor", workflow_id: workflow.id } : { kind: "thread" };
  client.command("chat_message", { content: JSON.stringify(call), chat_context: chatContext });
  const frames: ServerFrame[] = [];
  let untouched: unknown;
  if (rule === "ask") {
    frames.push(
      ...(await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user")),
    );
    const request = frames.find((f) => f.type === "tool_approval_request");
    if (request?.type !== "tool_approval_request") throw new Error("no tool_approval_request");
    expect(request).toMatchObject({ tool_name: call.name, args: call.args });
    expect(gatedClasses).toContain(request.permission_class);
    untouched = await c.effect(env);
    client.command("tool_approval_response", { approval_id: request.approval_id, decision });
  }
  if (c.kind.startsWith("client:") && decision === "allow") {
    const toolCall = await client.next("tool_call");
    expect(toolCall).toMatchObject({ name: call.name, args: call.args });
    client.command("tool_result", { tool_call_id: toolCall.tool_call_id, ok: true, result: "shown" });
  }
  frames.push(...(await client.collectUntil(isDone, 20_000)));
  const after = await c.effect(env);
  const threadId = (frames.find((f) => "thread_id" in f) as { thread_id: string }).thread_id;
  const turn = await server.repos.turns.latest(USER, threadId);
  const ledger = await server.repos.llmCalls.forTurn(USER, turn?.id ?? "");
  const rows = await storedMessages(server, threadId);
  await client.close();
  return { env, frames, before, untouched, after, turn, ledger, rows, workflowId: workflow.id };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Keys that differ between any two runs (timing, order in the thread's log). */
const volatile = new Set([
  "seq",
  "created_at",
  "duration_ms",
  "latencyMs",
  "createdAt",
  "startedAt",
  "endedAt",
]);
/** A value with what differs between two runs of the same call taken out: timings, seqs and ids. */
const normalised = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, v) => (volatile.has(key) ? undefined : v)).replace(UUID, "<id>"));

/**
 * The turn as a client and the database see it, less what asking adds (the request and the wait):
 * every other frame in order (the call's start and end, its nested frames with parent_id and depth,
 * the stored rows, the text, the usage), the ledger, the turn's row and the thread's stored messages.
 */
function observed(run: Awaited<ReturnType<typeof runTurn>>) {
  const frames = run.frames.filter(
    (f) => f.type !== "tool_approval_request" && !(f.type === "agent_state" && f.state === "waiting_on_user"),
  );
  const turn = run.turn && { status: run.turn.status, usage: run.turn.usage, error: run.turn.error };
  return normalised({ frames, ledger: run.ledger, turn, rows: run.rows });
}

const callEnd = (frames: ServerFrame[]) =>
  frames.find((f) => f.type === "tool_call_update" && f.tool_call_id === CALL_ID && f.status === "end") as
    | Extract<ServerFrame, { type: "tool_call_update" }>
    | undefined;

describe.each(cases)("gated tool $kind", (c) => {
  it("approved, runs exactly as the same call runs ungated: effect, frames and nesting, rows, ledger, status", async () => {
    const ungated = await runTurn(c, "allow");
    expect(ungated.frames.some((f) => f.type === "tool_approval_request")).toBe(false);
    expectWellFormedTurn(ungated.frames);
    expectStartsEnded(ungated.frames);
    expect(ungated.after).not.toEqual(ungated.before);
    const end = callEnd(ungated.frames);
    expect(end).toMatchObject({ name: c.call().name, is_error: false, parent_id: null, depth: 0 });
    const toolRow = ungated.rows.find((r) => r.role === "tool");
    expect(toolRow).toMatchObject({ tool_call_id: CALL_ID, content: expect.stringMatching(c.result) });
    // SQLite's rows say is_error: false, Postgres's leave it out.
    expect(toolRow?.is_error ?? false).toBe(false);
    expect(ungated.turn?.status).toBe("complete");
    expect(ungated.rows.at(-1)).toMatchObject({ role: "assistant", status: "complete" });
    const inner = Array.from({ length: c.innerModelCalls ?? 0 }, () => [1, CALL_ID]);
    expect(ungated.ledger.map((r) => [r.depth, r.parentId])).toEqual([[0, null], ...inner, [0, null]]);

    const approved = await runTurn(c, "ask", "allow");
    expectWellFormedTurn(approved.frames);
    expectStartsEnded(approved.frames);
    // Nothing ran while the turn waited; once approved, the call had the ungated run's effect.
    expect(approved.untouched).toEqual(approved.before);
    expect(approved.before).toEqual(ungated.before);
    expect(approved.after).toEqual(ungated.after);
    // The call's start went out before the request, its end after the answer.
    const at = (type: string, status?: string) =>
      approved.frames.findIndex(
        (f) => f.type === type && (status === undefined || ("status" in f && f.status === status)),
      );
    expect(at("tool_call_update", "start")).toBeLessThan(at("tool_approval_request"));
    expect(at("tool_approval_request")).toBeLessThan(at("tool_call_update", "end"));
    expect(observed(approved)).toEqual(observed(ungated));
  });

  it("denied, has no effect; the model reads the refusal and the turn completes", async () => {
    const denied = await runTurn(c, "ask", "deny");
    expectWellFormedTurn(denied.frames);
    expectStartsEnded(denied.frames);
    expect(denied.untouched).toEqual(denied.before);
    expect(denied.after).toEqual(denied.before);
    const refusal = `The user declined to run ${c.call().name}.`;
    expect(callEnd(denied.frames)).toMatchObject({
      is_error: true,
      result: refusal,
      parent_id: null,
      depth: 0,
    });
    expect(denied.frames.some((f) => f.type === "tool_call_update" && f.parent_id === CALL_ID)).toBe(false);
    expect(denied.rows.find((r) => r.role === "tool")).toMatchObject({
      tool_call_id: CALL_ID,
      content: refusal,
      is_error: true,
    });
    // Only the root's two model calls: nothing the tool would have asked the model.
    expect(denied.ledger.map((r) => [r.depth, r.parentId])).toEqual([
      [0, null],
      [0, null],
    ]);
    expect(denied.turn?.status).toBe("complete");
    expect(denied.rows.at(-1)).toMatchObject({
      role: "assistant",
      status: "complete",
      content: `done: ${refusal}`,
    });
  });
});
