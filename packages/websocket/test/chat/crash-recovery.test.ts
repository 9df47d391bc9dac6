import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createProviderRegistry } from "@agentwire-chat/agents";
import { ScriptedProvider } from "@agentwire-chat/agents/testing";
import type { StoredMessage } from "@agentwire-chat/protocol";
import { expectWellFormedTurn, isDone } from "@agentwire-chat/testkit/chat-harness";
import { crashChild } from "@agentwire-chat/testkit/crash-server";
import { TestClient } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../apps/server/src/config.js";
import { type RunningServer, startServer } from "../../../../apps/server/src/start-server.js";
import { createChatServices, createLogger } from "../../src/index.js";

const root = join(import.meta.dirname, "../../../..");
let child: ChildProcess | undefined;
let fresh: RunningServer | undefined;
let clients: TestClient[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const c of clients) c.ws.terminate();
  clients = [];
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  child = undefined;
  await fresh?.close();
  fresh = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Starts the child server process and resolves with its URL. */
function spawnChild(dbPath: string): Promise<string> {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@agentwire-chat/source", crashChild],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", DATABASE_PATH: dbPath },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child = proc;
  let stderr = "";
  proc.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      const entry = JSON.parse(line) as { url?: string };
      if (entry.url) resolve(entry.url);
    });
    proc.once("exit", (code) => reject(new Error(`child exited with ${code} before listening:\n${stderr}`)));
  });
}

// Each test spawns real server processes that load the sources through tsx: on a busy machine (a fresh
// container compiling them for the first time) that alone takes seconds, past the default 20 s.
describe("a crash in the middle of a turn", { timeout: 60_000 }, () => {
  it("leaves the turn interrupted after a restart, with the user message and the rows stored before the crash", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-crash-"));
    const dbPath = join(dir, "agentwire.db");
    const url = await spawnChild(dbPath);
    const client = await TestClient.open(`${url.replace("http", "ws")}/ws`);
    clients.push(client);
    client.command("chat_message", { content: "crash while you answer" });
    const frames = await client.collectUntil((f) => f.type === "chunk" && f.content === "answer");
    const threadId = (await Promise.resolve(frames[0] as { thread_id: string })).thread_id;
    expect(
      frames.filter((f) => f.type === "message").map((f) => (f.type === "message" ? f.message.role : "")),
    ).toEqual(["user", "assistant", "tool"]);
    const lastSeq = (frames.at(-1) as { seq: number }).seq;

    const proc = child as ChildProcess;
    const exited = new Promise((resolve) => proc.once("exit", (_code, signal) => resolve(signal)));
    proc.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    await client.waitForClose();
    expect(frames.some(isDone)).toBe(false);

    // The real start-up over the same file: whatever was running is ended as interrupted.
    const providers = createProviderRegistry(
      {},
      {
        extraProviders: [new ScriptedProvider([{ text: "Back again." }])],
        extraDefaultModels: { scripted: "scripted-1" },
      },
    );
    // With TURN_RECOVERY=interrupt (crash-continue.test.ts covers the default, which continues).
    const env = { DATABASE_PATH: dbPath, PORT: "0", LOG_LEVEL: "silent", TURN_RECOVERY: "interrupt" };
    fresh = await startServer(loadConfig(env), {
      services: { chat: createChatServices({ providers, defaults: { provider: "scripted" } }) },
      logger: createLogger({ level: "silent" }),
    });
    const repos = fresh.storage.repos;
    const turn = await repos.turns.latest("local", threadId);
    expect(turn?.status).toBe("interrupted");
    expect(turn?.endedAt).not.toBeNull();

    const res = await fetch(`${fresh.url}/api/threads/${threadId}/messages`);
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as { messages: StoredMessage[] };
    // The partial answer is rebuilt from the frames the client received: every character it saw.
    const seenText = frames
      .filter((f) => f.type === "chunk" && f.depth === 0 && !f.done)
      .map((f) => (f.type === "chunk" ? f.content : ""))
      .join("");
    expect(seenText).toBe("Looking it up.Half an answer");
    expect(messages.map((m) => [m.role, m.content, m.tool_call_id ?? null, m.status])).toEqual([
      ["user", "crash while you answer", null, "complete"],
      ["assistant", "Looking it up.", null, "complete"],
      ["tool", "echo:x", "e1", "complete"],
      ["assistant", "Half an answer", null, "interrupted"],
    ]);
    expect(messages[1]?.tool_calls).toEqual([{ id: "e1", name: "echo", args: { text: "x" } }]);
    expect(messages[3]?.execution_tree?.nodes.map((n) => n.id)).toEqual(["e1"]);

    const again = await TestClient.open(`${fresh.url.replace("http", "ws")}/ws`);
    clients.push(again);
    // Every frame the client saw is replayable, and the turn's closing frames follow them.
    again.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const replay = await again.collectUntil((f) => f.type === "chat_resumed");
    const resumed = replay.pop();
    expect(replay.slice(0, frames.length)).toEqual(frames);
    const closing = replay.slice(frames.length);
    expect(closing.map((f) => f.type)).toEqual(["message", "usage", "agent_state", "chunk"]);
    expect(closing[0]).toMatchObject({ message: { content: "Half an answer", status: "interrupted" } });
    expect(closing.filter(isDone)).toHaveLength(1);
    expect(closing.map((f) => (f as { seq: number }).seq)).toEqual([1, 2, 3, 4].map((i) => lastSeq + i));
    expect(resumed).toMatchObject({ status: "interrupted", replayed: replay.length, last_seq: lastSeq + 4 });
    // No seq is reused: the thread's next turn goes on after the closing frames.
    again.command("chat_message", { thread_id: threadId, content: "are you back?" });
    const next = await again.collectUntil(isDone);
    expectWellFormedTurn(next, lastSeq + 5);
    expect(next.filter((f) => f.type === "message").at(-1)).toMatchObject({
      message: { content: "Back again.", status: "complete" },
    });
  });
});
