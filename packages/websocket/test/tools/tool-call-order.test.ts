import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Tool } from "@agentwire-chat/agents";
import type { Repositories } from "@agentwire-chat/storage";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinServerTools, resolveToolPolicy } from "../../src/index.js";
import { injectedModel, injectedTurn, type ToolEnd, tempDir, toolEnds } from "./tool-helpers.js";

let dir: ReturnType<typeof tempDir>;
let server: ChatTestServer | undefined;
/** Every execute of the real workspace tools, as `enter NAME PATH` and `exit NAME PATH`, in the order they happened. */
let trace: string[];

beforeEach(() => {
  dir = tempDir("agentwire-order-");
  trace = [];
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  dir.remove();
});

/** The real built-in tools, each execute traced (the tool itself runs unchanged). */
function traced(tool: Tool): Tool {
  return {
    ...tool,
    execute: async (args, ctx) => {
      const label = `${tool.name} ${String((args as { path?: unknown }).path)}`;
      trace.push(`enter ${label}`);
      try {
        return await tool.execute(args, ctx);
      } finally {
        trace.push(`exit ${label}`);
      }
    },
  };
}

async function start(): Promise<ChatTestServer> {
  const workspaceRoot = join(dir.path, "ws");
  server = await startChatServer(injectedModel(), {
    serverTools: async (scope) =>
      (
        await createBuiltinServerTools({
          repos: server?.repos as Repositories,
          workspaceRoot,
          policyFor: () => resolveToolPolicy({}),
        })(scope)
      ).map(traced),
  });
  return server;
}

describe("one batch of tool calls runs in the model's order", { timeout: 60_000 }, () => {
  it("[write_file x, read_file x]: the read sees what the write wrote", async () => {
    const client = await (await start()).connect();
    const frames = await injectedTurn(client, [
      { name: "write_file", args: { path: "x.txt", content: "written first" } },
      { name: "read_file", args: { path: "x.txt" } },
    ]);
    expectWellFormedTurn(frames);
    const [write, read] = toolEnds(frames);
    expect(write).toMatchObject({ name: "write_file", is_error: false });
    expect(read).toMatchObject({ name: "read_file", is_error: false });
    expect(String(read?.result)).toContain("written first");
    expect(trace).toEqual([
      "enter write_file x.txt",
      "exit write_file x.txt",
      "enter read_file x.txt",
      "exit read_file x.txt",
    ]);
  });

  it("[read a, read b, write c, read c]: the reads overlap, the write waits for both, the last read waits for the write", async () => {
    const client = await (await start()).connect();
    await injectedTurn(client, [
      { name: "write_file", args: { path: "a.txt", content: "A" } },
      { name: "write_file", args: { path: "b.txt", content: "B" } },
    ]);
    trace = [];
    const frames = await injectedTurn(client, [
      { name: "read_file", args: { path: "a.txt" } },
      { name: "read_file", args: { path: "b.txt" } },
      { name: "write_file", args: { path: "c.txt", content: "C after the reads" } },
      { name: "read_file", args: { path: "c.txt" } },
    ]);
    expectWellFormedTurn(frames);
    const ends = toolEnds(frames);
    expect(ends.map((e) => [e.name, e.is_error])).toEqual([
      ["read_file", false],
      ["read_file", false],
      ["write_file", false],
      ["read_file", false],
    ]);
    expect(String(ends[0]?.result)).toContain("A");
    expect(String(ends[1]?.result)).toContain("B");
    expect(String(ends[3]?.result)).toContain("C after the reads");
    // Both reads entered before either left (they ran together); the write began after both had left.
    const at = (line: string) => trace.indexOf(line);
    expect(Math.max(at("enter read_file a.txt"), at("enter read_file b.txt"))).toBeLessThan(
      Math.min(at("exit read_file a.txt"), at("exit read_file b.txt")),
    );
    expect(at("enter write_file c.txt")).toBeGreaterThan(
      Math.max(at("exit read_file a.txt"), at("exit read_file b.txt")),
    );
    expect(at("enter read_file c.txt")).toBeGreaterThan(at("exit write_file c.txt"));
    // Results reach the model, the clients and the stored rows in call order.
    const resultIds = frames
      .filter((f): f is ToolEnd => f.type === "tool_call_update" && f.status === "end")
      .map((f) => f.tool_call_id);
    const startIds = frames
      .filter((f): f is ToolEnd => f.type === "tool_call_update" && f.status === "start")
      .map((f) => f.tool_call_id);
    expect(new Set(resultIds)).toEqual(new Set(startIds));
    const secondCall = server?.provider.requests.at(-1);
    const toolMessages = (secondCall?.messages ?? []).filter((m) => m.role === "tool").slice(-4);
    expect(toolMessages.map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(startIds);
  });

  it("parallel subtasks around a write: the one before it reads the old text, the one after it the new", async () => {
    const client = await (await start()).connect();
    await injectedTurn(client, [{ name: "write_file", args: { path: "x.txt", content: "old" } }]);
    const readX = JSON.stringify([{ name: "read_file", args: { path: "x.txt" } }]);
    const frames = await injectedTurn(client, [
      { name: "run_subtask", args: { title: "before", instructions: readX } },
      { name: "write_file", args: { path: "x.txt", content: "new" } },
      { name: "run_subtask", args: { title: "after", instructions: readX } },
    ]);
    expectWellFormedTurn(frames);
    const updates = frames.filter((f): f is ToolEnd => f.type === "tool_call_update");
    const subtaskId = (title: string) =>
      updates.find((f) => f.status === "start" && f.name === "run_subtask" && f.title === title)
        ?.tool_call_id;
    const readIn = (title: string) =>
      updates.find((f) => f.status === "end" && f.name === "read_file" && f.parent_id === subtaskId(title));
    expect(subtaskId("before")).toBeDefined();
    expect(String(readIn("before")?.result)).toContain("old");
    expect(String(readIn("after")?.result)).toContain("new");
    const [user] = readdirSync(join(dir.path, "ws"));
    expect(readFileSync(join(dir.path, "ws", String(user), "x.txt"), "utf8")).toBe("new");
  });
});
