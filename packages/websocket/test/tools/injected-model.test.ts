import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { userDirName } from "@agentwire-chat/agents";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinServerTools, resolveToolPolicy } from "../../src/index.js";
import { injectedModel, injectedTurn, tempDir, toolEnds } from "./tool-helpers.js";

let server: ChatTestServer | undefined;
let root: ReturnType<typeof tempDir>;
let outside: ReturnType<typeof tempDir>;

beforeEach(() => {
  root = tempDir("agentwire-ws-root-");
  outside = tempDir("agentwire-ws-outside-");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  root.remove();
  outside.remove();
});

/** A chat server whose server tools are the real built-in toolbelt over its own database. */
async function startBuiltinServer(
  options: Parameters<typeof startChatServer>[1] = {},
): Promise<ChatTestServer> {
  const policy = resolveToolPolicy({});
  // The repositories exist only once the server is up; the factory is built on first use.
  let serverTools: ReturnType<typeof createBuiltinServerTools> | undefined;
  const started = await startChatServer(injectedModel(), {
    serverLimits: { sendSoftLimitBytes: 64 * 1024 * 1024, sendHardLimitBytes: 128 * 1024 * 1024 },
    ...options,
    serverTools: (scope) => {
      serverTools ??= createBuiltinServerTools({
        repos: started.repos,
        workspaceRoot: root.path,
        policyFor: () => policy,
      });
      return serverTools(scope);
    },
  });
  return started;
}

function userDir(userId: string): string {
  const name = userDirName(userId);
  if (!name.ok) throw new Error(name.reason);
  return join(root.path, name.value);
}

/** Every path under `dir` with its type and size: a snapshot to prove nothing changed. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      out.push(`${p}:${st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : st.size}`);
      if (st.isDirectory() && !st.isSymbolicLink()) walk(p);
    }
  };
  walk(dir);
  return out;
}

describe("a prompt-injected model against the built-in tools, through a real turn", () => {
  it("is refused every way out of the workspace, with a clear reason, and nothing outside changes", async () => {
    server = await startBuiltinServer();
    const home = userDir("local");
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(join(outside.path, "secret.txt"), "outside secret");
    symlinkSync("/", join(home, "escape"));
    symlinkSync(outside.path, join(home, "sideways"));
    const outsideBefore = snapshot(outside.path);
    const pwned = `agentwire-pwned-${process.pid}-${Date.now()}`;

    const client = await server.connect();
    const calls = [
      { name: "read_file", args: { path: "../../etc/passwd" } },
      { name: "read_file", args: { path: "/etc/passwd" } },
      { name: "read_file", args: { path: "escape/etc/passwd" } },
      { name: "read_file", args: { path: "sideways/secret.txt" } },
      { name: "list_files", args: { path: "escape" } },
      { name: "read_file", args: { path: "notes\u0000.txt" } },
      { name: "write_file", args: { path: "a\u0000b.txt", content: "x" } },
      { name: "write_file", args: { path: `escape/tmp/${pwned}`, content: "owned" } },
      { name: "write_file", args: { path: "sideways/planted.txt", content: "owned" } },
      { name: "write_file", args: { path: "../planted.txt", content: "owned" } },
      { name: "write_file", args: { path: "big.txt", content: { repeat: "a", times: 10 * 1024 * 1024 } } },
    ];
    const frames = await injectedTurn(client, calls);
    expectWellFormedTurn(frames);
    const ends = toolEnds(frames);
    expect(ends.map((e) => e.name)).toEqual(calls.map((c) => c.name));
    for (const end of ends) expect(end.is_error, JSON.stringify(end).slice(0, 300)).toBe(true);
    const reasons = ends.map((e) => String(e.result));
    expect(reasons[0]).toMatch(/\.\./);
    expect(reasons[1]).toMatch(/absolute/i);
    expect(reasons[2]).toMatch(/outside|leaves|symlink/i);
    expect(reasons[3]).toMatch(/outside|leaves|symlink/i);
    expect(reasons[4]).toMatch(/outside|leaves|symlink/i);
    expect(reasons[5]).toMatch(/NUL|control/i);
    expect(reasons[6]).toMatch(/NUL|control/i);
    expect(reasons[7]).toMatch(/outside|leaves|symlink/i);
    expect(reasons[8]).toMatch(/outside|leaves|symlink/i);
    expect(reasons[9]).toMatch(/\.\./);
    expect(reasons[10]).toMatch(/MiB|bytes|large/i);
    // No host path leaks into what the model sees.
    for (const r of reasons) expect(r).not.toContain(root.path);

    expect(snapshot(outside.path)).toEqual(outsideBefore);
    expect(existsSync(`/tmp/${pwned}`)).toBe(false);
    expect(existsSync(join(root.path, "planted.txt"))).toBe(false);
    expect(snapshot(home).map((p) => p.slice(home.length))).toEqual(["/escape:link", "/sideways:link"]);
    // The model saw each refusal as an error result and the turn went on to its answer.
    const toolMessages = server.provider.requests[1]?.messages.filter((m) => m.role === "tool") ?? [];
    expect(toolMessages).toHaveLength(calls.length);
    expect(toolMessages.every((m) => m.role === "tool" && m.isError === true)).toBe(true);
    expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
      message: { role: "assistant", content: "done", status: "complete" },
    });
  });

  it("reads and writes inside the user's own workspace", async () => {
    server = await startBuiltinServer();
    const client = await server.connect();
    const frames = await injectedTurn(client, [
      { name: "write_file", args: { path: "notes/a.txt", content: "hello" } },
    ]);
    expect(toolEnds(frames)[0]?.is_error).toBeFalsy();
    const read = await injectedTurn(client, [
      { name: "read_file", args: { path: "notes/a.txt" } },
      { name: "list_files", args: {} },
    ]);
    const [file, list] = toolEnds(read);
    expect(file?.is_error).toBeFalsy();
    expect(JSON.stringify(file?.result)).toContain("hello");
    expect(JSON.stringify(list?.result)).toContain("notes");
  });

  it("refuses web_fetch of the server itself, cloud metadata and an IPv4-mapped loopback", async () => {
    // Requests are logged at debug: the check below that nothing reached /health needs those lines.
    server = await startBuiltinServer({ logLevel: "debug" });
    const port = new URL(server.httpUrl).port;
    const client = await server.connect();
    const urls = [
      `http://127.0.0.1:${port}/health`,
      `http://localhost:${port}/health`,
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:127.0.0.1]/",
      `http://[::ffff:7f00:1]:${port}/health`,
      `http://2130706433:${port}/health`,
      "file:///etc/passwd",
    ];
    const frames = await injectedTurn(
      client,
      urls.map((url) => ({ name: "web_fetch", args: { url } })),
    );
    expectWellFormedTurn(frames);
    const ends = toolEnds(frames);
    expect(ends).toHaveLength(urls.length);
    for (const end of ends) {
      expect(end.is_error, JSON.stringify(end)).toBe(true);
      expect(String(end.result)).toMatch(
        /private|local|loopback|reserved|link-local|refused|not allowed|only http/i,
      );
    }
    // None of them reached the server: only this test's own request hits /health afterwards.
    const healthHits = server.logs.filter((l) => l.includes('"url":"/health"'));
    expect(healthHits).toEqual([]);
  });

  it("web_fetch reaches a host the operator allowed (allowHosts), and only that one", async () => {
    const policy = resolveToolPolicy({});
    let tools: ReturnType<typeof createBuiltinServerTools> | undefined;
    let allowed = "";
    server = await startChatServer(injectedModel(), {
      logLevel: "debug",
      serverTools: (scope) => {
        tools ??= createBuiltinServerTools({
          repos: server?.repos as NonNullable<typeof server>["repos"],
          workspaceRoot: root.path,
          webFetch: { allowHosts: [allowed] },
          policyFor: () => policy,
        });
        return tools(scope);
      },
    });
    const port = new URL(server.httpUrl).port;
    allowed = `127.0.0.1:${port}`;
    const client = await server.connect();
    const frames = await injectedTurn(client, [
      { name: "web_fetch", args: { url: `http://127.0.0.1:${port}/health` } },
      { name: "web_fetch", args: { url: `http://127.0.0.2:${port}/health` } },
    ]);
    const [ok, refused] = toolEnds(frames);
    expect(ok?.is_error, JSON.stringify(ok)).toBeFalsy();
    expect(refused?.is_error).toBe(true);
    // The request really reached the server (the same log check proves the refusals above reached nothing).
    expect(server.logs.filter((l) => l.includes('"url":"/health"'))).toHaveLength(1);
  });

  it("keeps memory per user: B cannot read or list what A wrote", async () => {
    // Not "0000": that is found by chance in the frames' random ids (one run in a few hundred).
    const SECRET = "launch-code-value-Qx7";
    server = await startBuiltinServer({ auth: "token" });
    const alice = await server.connect({ token: await server.createToken("alice") });
    const bob = await server.connect({ token: await server.createToken("bob") });

    const wrote = await injectedTurn(alice, [
      { name: "memory_write", args: { key: "launch-code", value: SECRET } },
    ]);
    expect(toolEnds(wrote)[0]?.is_error).toBeFalsy();
    expect(await server.repos.memories.get("alice", "launch-code")).toBe(SECRET);

    const frames = await injectedTurn(bob, [
      { name: "memory_read", args: { key: "launch-code" } },
      { name: "memory_read", args: { key: "launch-code", userId: "alice" } },
      { name: "memory_read", args: { key: "alice/launch-code" } },
      { name: "memory_list", args: { userId: "alice" } },
    ]);
    const [read, readAs, readPath, list] = toolEnds(frames);
    expect(read).toMatchObject({ is_error: true });
    expect(String(read?.result)).toMatch(/no memory stored under key launch-code/);
    expect(readAs).toMatchObject({ is_error: true });
    expect(String(readAs?.result)).toMatch(/no memory stored/);
    expect(readPath).toMatchObject({ is_error: true });
    expect(String(readPath?.result)).toMatch(/key may only contain/);
    expect(list?.is_error).toBeFalsy();
    expect(JSON.parse(String(list?.result))).toMatchObject({ keys: [], count: 0 });
    expect(JSON.stringify(frames)).not.toContain(SECRET);
    expect(await server.repos.memories.keys("bob")).toEqual([]);

    // A's own read still works, and an overwrite replaces (one row per (user, key)).
    await injectedTurn(alice, [{ name: "memory_write", args: { key: "launch-code", value: "1234" } }]);
    const again = await injectedTurn(alice, [{ name: "memory_read", args: { key: "launch-code" } }]);
    expect(JSON.parse(String(toolEnds(again)[0]?.result))).toEqual({ key: "launch-code", value: "1234" });
    expect(await server.repos.memories.count("alice")).toBe(1);
  });

  it("memory_enabled:false removes the memory tools from what the model is offered", async () => {
    server = await startBuiltinServer();
    const client = await server.connect();
    await injectedTurn(client, [], {});
    await injectedTurn(client, [], { memory_enabled: false });
    const offered = server.provider.requests.map((r) => r.tools.map((t) => t.name).sort());
    expect(offered[0]).toEqual([
      "ask_user",
      "create_plan",
      "delete_file",
      "list_files",
      "memory_list",
      "memory_read",
      "memory_write",
      "read_file",
      "run_subtask",
      "scratchpad_update",
      "search_files",
      "send_update",
      "web_fetch",
      "write_file",
    ]);
    expect(offered[1]).toEqual([
      "ask_user",
      "create_plan",
      "delete_file",
      "list_files",
      "read_file",
      "run_subtask",
      "scratchpad_update",
      "search_files",
      "send_update",
      "web_fetch",
      "write_file",
    ]);
  });

  it("with a memory_enabled:false turn, a memory call the model makes anyway is an unknown tool", async () => {
    server = await startBuiltinServer();
    await server.repos.memories.set("local", "k", "v");
    const client = await server.connect();
    const frames = await injectedTurn(client, [{ name: "memory_read", args: { key: "k" } }], {
      memory_enabled: false,
    });
    const [end] = toolEnds(frames);
    expect(end?.is_error).toBe(true);
    expect(JSON.stringify(frames)).not.toContain('"value":"v"');
  });
});
