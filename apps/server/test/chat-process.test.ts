import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import { scriptedProviderModule } from "@agentwire-chat/testkit/fixtures";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";

const root = join(import.meta.dirname, "../../..");
const main = join(root, "apps/server/src/main.ts");
const provider = scriptedProviderModule;
const children: ChildProcess[] = [];
let dir: string | undefined;
afterEach(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  children.length = 0;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function spawnServer(
  dbPath: string,
  extraEnv: Record<string, string> = {},
): { proc: ChildProcess; url: Promise<string> } {
  const proc = spawn(process.execPath, ["--import", "tsx", "--conditions=@agentwire-chat/source", main], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      DATABASE_PATH: dbPath,
      AGENTWIRE_SCRIPTED_PROVIDER: provider,
      DEFAULT_PROVIDER: "scripted",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(proc);
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "agentwire listening" && entry.url) resolve(entry.url);
    });
    proc.once("exit", (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
  return { proc, url };
}

/** A ws client that collects frames and resolves when one matches. */
async function client(url: string) {
  // Renders nesting: subtask text (depth 1) is what the crash test waits for.
  const ws = new WebSocket(`${url.replace("http", "ws")}/ws`, ["agentwire.v1+nested"]);
  const frames: ServerFrame[] = [];
  const waiters: { match: (f: ServerFrame) => boolean; resolve: (f: ServerFrame) => void }[] = [];
  ws.on("message", (data) => {
    const frame = JSON.parse(String(data)) as ServerFrame;
    frames.push(frame);
    for (const w of waiters.splice(0)) {
      if (w.match(frame)) w.resolve(frame);
      else waiters.push(w);
    }
  });
  await new Promise((resolve) => ws.once("open", resolve));
  return {
    ws,
    frames,
    send: (command: string, data: unknown) => ws.send(JSON.stringify({ command, data })),
    until: (match: (f: ServerFrame) => boolean) =>
      new Promise<ServerFrame>((resolve) => {
        const found = frames.find(match);
        if (found) resolve(found);
        else waiters.push({ match, resolve });
      }),
  };
}

// Each test spawns real server processes that load the sources through tsx: on a busy machine (a fresh
// container compiling them for the first time) that alone takes seconds, past the default 20 s.
describe("the server process with a provider", { timeout: 60_000 }, () => {
  it("runs a chat turn, lists its providers and exposes metrics", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-chat-proc-"));
    const web = join(dir, "web");
    mkdirSync(web);
    writeFileSync(join(web, "index.html"), "<!doctype html><title>agentwire test page</title>");
    writeFileSync(join(web, ".env"), "SECRET=1");
    const { url: urlP } = spawnServer(join(dir, "a.db"), { WEB_DIST_DIR: web });
    const url = await urlP;
    const c = await client(url);
    c.send("chat_message", { content: "hello" });
    await c.until((f) => f.type === "chunk" && f.done === true);
    expect(c.frames.find((f) => f.type === "chunk")).toMatchObject({ content: "you said: hello", depth: 0 });
    // The web client's static files are served at /.
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await page.text()).toContain("agentwire test page");
    const dotfile = await fetch(`${url}/.env`);
    expect(dotfile.status).toBe(403);
    expect(await dotfile.text()).not.toContain("SECRET");
    const providers = (await (await fetch(`${url}/api/providers`)).json()) as { providers: { id: string }[] };
    expect(providers.providers.map((p) => p.id)).toEqual(["scripted"]);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('agentwire_turns_ended_total{status="complete"} 1');
    expect(metrics).toContain("agentwire_open_sockets 1");
    c.ws.close();
  });

  it("gives the agent the built-in tools, confined to the user's workspace", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-tools-proc-"));
    const workspace = join(dir, "ws");
    const { url: urlP } = spawnServer(join(dir, "t.db"), { WORKSPACE_ROOT: workspace });
    const c = await client(await urlP);
    c.send("chat_message", { content: "write a note" });
    await c.until((f) => f.type === "chunk" && f.done === true);
    const end = c.frames.find((f) => f.type === "tool_call_update" && f.status === "end");
    expect(end).toMatchObject({ name: "write_file" });
    expect(end && "is_error" in end && end.is_error).toBeFalsy();
    expect(readFileSync(join(workspace, "local", "notes", "hello.txt"), "utf8")).toBe("hi from the agent");
    c.ws.close();
  });

  it("runs a saved workflow (the workflow route) stored over HTTP", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-wf-proc-"));
    const { url: urlP } = spawnServer(join(dir, "w.db"));
    const url = await urlP;
    const graph = {
      nodes: [
        { id: "in", type: "input.text", properties: {} },
        { id: "tpl", type: "text.template", properties: { template: "Echo: {{text}}" } },
        { id: "out", type: "output.text", properties: {} },
      ],
      edges: [
        { source: "in", source_port: "text", target: "tpl", target_port: "text" },
        { source: "tpl", source_port: "text", target: "out", target_port: "text" },
      ],
    };
    const created = await fetch(`${url}/api/workflows`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "echo", graph }),
    });
    expect(created.status).toBeLessThan(300);
    const body = (await created.json()) as { workflow?: { id: string }; id?: string };
    const workflowId = body.workflow?.id ?? body.id;
    const c = await client(url);
    c.send("chat_message", { content: "ping", workflow_target: "workflow", workflow_id: workflowId });
    await c.until((f) => f.type === "chunk" && f.done === true);
    expect(
      c.frames.filter((f) => f.type === "job_update").map((f) => (f as { status: string }).status),
    ).toEqual(["running", "completed"]);
    const final = c.frames.filter((f) => f.type === "message").at(-1) as { message: StoredMessage };
    expect(final.message).toMatchObject({ role: "assistant", content: "Echo: ping", status: "complete" });
    c.ws.close();
  });

  it("marks a turn killed mid-way interrupted on restart, with the user message and partial rows kept", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-crash-"));
    const dbPath = join(dir, "crash.db");
    const first = spawnServer(dbPath);
    const c = await client(await first.url);
    c.send("chat_message", { content: "crash me" });
    // The child subtask is streaming and holds: the root's assistant row with its tool call is stored.
    await c.until((f) => f.type === "chunk" && f.depth === 1);
    const threadId = (c.frames[0] as { thread_id: string }).thread_id;
    const exited = new Promise((resolve) => first.proc.once("exit", resolve));
    first.proc.kill("SIGKILL");
    await exited;

    // The turn that ends `interrupted` (the default, TURN_RECOVERY=continue, is tested in the websocket package).
    const second = spawnServer(dbPath, { TURN_RECOVERY: "interrupt" });
    const url = await second.url;
    const { messages } = (await (await fetch(`${url}/api/threads/${threadId}/messages`)).json()) as {
      messages: StoredMessage[];
    };
    // The root had no unfinished text of its own (the subtask was streaming): the closing row is empty.
    expect(messages.map((m) => [m.role, m.content, m.status])).toEqual([
      ["user", "crash me", "complete"],
      ["assistant", "Working on it.", "complete"],
      ["assistant", "", "interrupted"],
    ]);
    expect(messages[1]?.tool_calls?.[0]).toMatchObject({ id: "sub_1", name: "run_subtask" });
    expect(messages[2]?.execution_tree?.nodes.map((n) => n.id)).toEqual(["sub_1"]);
    const r = await client(url);
    r.send("resume_chat", { thread_id: threadId, last_seq: 0 });
    const resumed = await r.until((f) => f.type === "chat_resumed");
    // Everything the client received replays, then the frames that close the turn.
    const seen = c.frames.length;
    expect(r.frames.slice(0, seen)).toEqual(c.frames);
    expect(r.frames.slice(seen, -1).map((f) => f.type)).toEqual(["message", "usage", "agent_state", "chunk"]);
    expect(resumed).toMatchObject({ status: "interrupted", replayed: seen + 4 });
    // The thread is usable again, and its seq goes on from where the dead process stored it.
    r.send("chat_message", { content: "again", thread_id: threadId });
    const done = await r.until((f) => f.type === "chunk" && f.done === true);
    expect((done as { seq: number }).seq).toBeGreaterThan(4);
    r.ws.close();
  });
});
