import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createMemoryTools, InMemoryPinStore, McpManager, type Tool } from "@agentwire-chat/agents";
import type { Repositories, Storage } from "@agentwire-chat/storage";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { mcpTestServer } from "@agentwire-chat/testkit/fixtures";
import { openTestStorage } from "@agentwire-chat/testkit/harness";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createBuiltinServerTools,
  RepoMemoryStore,
  resolveToolPolicy,
  ToolPolicies,
} from "../../src/index.js";
import { injectedModel, injectedTurn, tempDir, toolEnds } from "./tool-helpers.js";

const FIXTURE = mcpTestServer;

let dir: ReturnType<typeof tempDir>;
let database: Storage | undefined;
let repos: Repositories;
let server: ChatTestServer | undefined;
const managers: McpManager[] = [];

beforeEach(async () => {
  dir = tempDir("agentwire-builtin-");
  database = await openTestStorage(join(dir.path, "db.sqlite"));
  repos = database.repos;
  await repos.users.ensure("alice");
  await repos.users.ensure("bob");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(managers.splice(0).map((m) => m.close()));
  await database?.close();
  database = undefined;
  dir.remove();
});

const scope = (userId: string) => ({
  userId,
  threadId: "t1",
  chatContext: { kind: "thread" as const },
  connectionId: "c1",
});
const names = (tools: Tool[]) => tools.map((t) => t.name).sort();

describe("MemoriesRepo and RepoMemoryStore", () => {
  it("scopes every read and write by user, upserts one row per (user, key), sorts keys", async () => {
    await repos.memories.set("alice", "b", "1");
    await repos.memories.set("alice", "a", "2");
    await repos.memories.set("alice", "b", "3");
    await repos.memories.set("bob", "a", "bob's");
    expect(await repos.memories.keys("alice")).toEqual(["a", "b"]);
    expect(await repos.memories.get("alice", "b")).toBe("3");
    expect(await repos.memories.get("bob", "b")).toBeUndefined();
    expect(await repos.memories.get("bob", "a")).toBe("bob's");
    expect(await repos.memories.count("alice")).toBe(2);
    expect(await repos.memories.delete("bob", "b")).toBe(false);
    expect(await repos.memories.delete("alice", "b")).toBe(true);
    expect(await repos.memories.keys("alice")).toEqual(["a"]);
  });

  it("backs the agents' memory tools, with the per-user key cap holding over SQLite", async () => {
    const store = new RepoMemoryStore(repos.memories);
    const tools = createMemoryTools(store, "alice", { maxKeysPerUser: 2 });
    const write = tools.find((t) => t.name === "memory_write") as Tool;
    const ctx = { toolCallId: "x", depth: 0, parentId: null, signal: new AbortController().signal };
    const run = (key: string) => write.execute({ key, value: "v" }, ctx);
    const results = await Promise.all([run("k1"), run("k2"), run("k3")]);
    expect(results.map((r) => r.type === "result" && r.isError === true)).toEqual([false, false, true]);
    expect(await store.list("alice")).toEqual(["k1", "k2"]);
    expect(await store.list("bob")).toEqual([]);
  });
});

describe("createBuiltinServerTools", () => {
  it("gives each user the built-in toolbelt, with files under <root>/<user>", async () => {
    const serverTools = createBuiltinServerTools({
      repos,
      workspaceRoot: join(dir.path, "ws"),
      policyFor: () => resolveToolPolicy({}),
    });
    const tools = await serverTools(scope("alice"));
    expect(names(tools)).toEqual([
      "ask_user",
      "delete_file",
      "list_files",
      "memory_list",
      "memory_read",
      "memory_write",
      "read_file",
      "run_subtask",
      "search_files",
      "web_fetch",
      "write_file",
    ]);
    const write = tools.find((t) => t.name === "write_file") as Tool;
    const ctx = { toolCallId: "x", depth: 0, parentId: null, signal: new AbortController().signal };
    expect((await write.execute({ path: "a.txt", content: "hi" }, ctx)).type).toBe("result");
    expect(existsSync(join(dir.path, "ws", "alice", "a.txt"))).toBe(true);
    expect(existsSync(join(dir.path, "ws", "bob"))).toBe(false);
  });

  it("write_file, search_files and delete_file through the socket: a model's attack on the root changes nothing outside", async () => {
    const workspaceRoot = join(dir.path, "ws");
    const outside = join(dir.path, "outside.txt");
    writeFileSync(outside, "milk outside");
    server = await startChatServer(injectedModel(), {
      auth: "token",
      serverTools: (s) =>
        createBuiltinServerTools({
          repos: server?.repos as Repositories,
          workspaceRoot,
          policyFor: () => resolveToolPolicy({}),
        })(s),
    });
    const alice = await server.connect({ token: await server.createToken("alice") });
    const written = await injectedTurn(alice, [
      { name: "write_file", args: { path: "notes/list.md", content: "buy milk\nand bread" } },
    ]);
    expectWellFormedTurn(written);
    const searched = await injectedTurn(alice, [
      { name: "search_files", args: { query: "MILK", glob: "*.md" } },
    ]);
    expectWellFormedTurn(searched);
    expect(JSON.parse(String(toolEnds(searched)[0]?.result))).toMatchObject({
      matches: [{ path: "notes/list.md", line: 1, text: "buy milk" }],
      truncated: false,
    });
    const attacks = await injectedTurn(alice, [
      { name: "delete_file", args: { path: "../../outside.txt" } },
      { name: "delete_file", args: { path: outside } },
      { name: "delete_file", args: { path: "notes/list.md" } },
    ]);
    expectWellFormedTurn(attacks);
    const [up, absolute, mine] = toolEnds(attacks);
    expect(up).toMatchObject({ name: "delete_file", is_error: true });
    expect(String(up?.result)).toMatch(/'\.\.' is not allowed/);
    expect(absolute).toMatchObject({ is_error: true });
    expect(String(absolute?.result)).not.toContain(dir.path);
    expect(mine).toMatchObject({ is_error: false });
    expect(existsSync(join(workspaceRoot, "alice", "notes", "list.md"))).toBe(false);
    expect(readFileSync(outside, "utf8")).toBe("milk outside");
  });

  it("adds the MCP tools of the servers the user's policy allows, starts no other, and logs why one is missing", async () => {
    const marker = (name: string) => join(dir.path, `${name}.marker`);
    const mcp = new McpManager({
      config: {
        servers: {
          test: { command: process.execPath, args: [FIXTURE], env: { MARKER_FILE: marker("test") } },
          forbidden: {
            command: process.execPath,
            args: [FIXTURE],
            env: { MARKER_FILE: marker("forbidden") },
          },
        },
      },
      pins: new InMemoryPinStore(),
    });
    managers.push(mcp);
    // As at start-up: the allowed server connects in the background (a turn never waits for it).
    mcp.connect(["test"]);
    await mcp.settled();
    const notes: Record<string, unknown>[] = [];
    // Per user, as TOOL_POLICY_FILE gives them: alice's entry names two servers, bob has none.
    const policies = new ToolPolicies({}, { users: { alice: { mcp_servers: ["test", "ghost"] } } });
    const policyFor = (userId: string) => policies.policyFor(userId);
    let serverTools: ReturnType<typeof createBuiltinServerTools> | undefined;
    server = await startChatServer(injectedModel(), {
      auth: "token",
      // One factory for every turn, as in production (it remembers what it logged).
      serverTools: (s) => {
        serverTools ??= createBuiltinServerTools({
          repos: server?.repos as Repositories,
          workspaceRoot: join(dir.path, "ws"),
          mcp,
          policyFor,
          logger: { warn: (obj, msg) => notes.push({ ...obj, msg }) },
        });
        return serverTools(s);
      },
    });
    const alice = await server.connect({ token: await server.createToken("alice") });
    const frames = await injectedTurn(alice, [{ name: "test__echo", args: { text: "through MCP" } }]);
    expectWellFormedTurn(frames);
    expect(toolEnds(frames)[0]).toMatchObject({ name: "test__echo", result: "echo: through MCP" });
    expect(server.provider.requests[0]?.tools.map((t) => t.name)).toContain("test__echo");
    expect(existsSync(marker("forbidden"))).toBe(false);
    // A name the MCP config lacks is logged once, not on every turn.
    await injectedTurn(alice, [{ name: "test__echo", args: { text: "again" } }]);
    expect(notes).toEqual([
      expect.objectContaining({
        msg: "MCP server unavailable",
        mcp_server: "ghost",
        reason: "not configured",
        user_id: "alice",
      }),
    ]);

    // Bob's policy allows no MCP server: none of its tools, and a call by name is an unknown tool.
    const bob = await server.connect({ token: await server.createToken("bob") });
    const bobFrames = await injectedTurn(bob, [{ name: "test__echo", args: { text: "x" } }]);
    expect(toolEnds(bobFrames)[0]).toMatchObject({ is_error: true });
    expect(server.provider.requests.at(-2)?.tools.map((t) => t.name)).not.toContain("test__echo");
  });

  it("an MCP schema with format uri and an unknown format: validated, and no stray stderr while a turn runs", async () => {
    const notes: Record<string, unknown>[] = [];
    const mcp = new McpManager({
      config: {
        servers: { test: { command: process.execPath, args: [FIXTURE], env: { FORMAT_TOOL: "1" } } },
      },
      pins: new InMemoryPinStore(),
      logger: { warn: (obj, msg) => notes.push({ ...obj, msg }) },
    });
    managers.push(mcp);
    mcp.connect(["test"]);
    await mcp.settled();
    server = await startChatServer(injectedModel(), {
      auth: "token",
      serverTools: createBuiltinServerTools({
        repos,
        workspaceRoot: join(dir.path, "ws"),
        mcp,
        policyFor: () => resolveToolPolicy({ allowedMcpServers: ["test"] }),
      }),
    });
    const alice = await server.connect({ token: await server.createToken("alice") });
    // ajv's default logger is console: spy on it and on stderr itself for the whole turn.
    const stray = [
      vi.spyOn(process.stderr, "write"),
      vi.spyOn(console, "warn"),
      vi.spyOn(console, "error"),
      vi.spyOn(console, "log"),
    ];
    let frames: Awaited<ReturnType<typeof injectedTurn>>;
    let written: string[];
    try {
      frames = await injectedTurn(alice, [
        { name: "test__link", args: { url: "https://example.com/a?b=1", tag: "t" } },
        { name: "test__link", args: { url: "not a uri" } },
      ]);
    } finally {
      // Read the calls before mockRestore, which clears them.
      written = stray.flatMap((spy) => spy.mock.calls.map((c) => String(c[0])));
      for (const spy of stray) spy.mockRestore();
    }
    expect(written).toEqual([]);
    expectWellFormedTurn(frames);
    const [good, bad] = toolEnds(frames);
    expect(good).toMatchObject({ name: "test__link", result: "link: https://example.com/a?b=1" });
    expect(bad).toMatchObject({ name: "test__link", is_error: true });
    expect(String(bad?.result)).toMatch(/format "uri"/);
    expect(notes.filter((n) => n.source === "ajv")).toEqual([
      expect.objectContaining({
        source: "ajv",
        msg: expect.stringMatching(/unknown format "x-agentwire-tag"/),
      }),
    ]);
  });

  it("a failing MCP manager leaves the turn without MCP tools instead of failing it", async () => {
    const mcp = new McpManager({ config: { servers: {} }, pins: new InMemoryPinStore() });
    managers.push(mcp);
    const broken = Object.assign(Object.create(mcp) as McpManager, {
      toolsFor: () => {
        throw new Error("boom");
      },
    });
    const notes: string[] = [];
    const serverTools = createBuiltinServerTools({
      repos,
      workspaceRoot: join(dir.path, "ws"),
      mcp: broken,
      policyFor: () => resolveToolPolicy({ allowedMcpServers: ["x"] }),
      logger: { warn: (_obj, msg) => notes.push(msg) },
    });
    expect(names(await serverTools(scope("alice")))).toContain("web_fetch");
    expect(notes).toEqual(["MCP tools unavailable"]);
  });
});
