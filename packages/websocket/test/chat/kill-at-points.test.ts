import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import { expectWellFormedTurn, isDone } from "@agentwire-chat/testkit/chat-harness";
import { TestClient } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../apps/server/src/config.js";
import { type RunningServer, startServer } from "../../../../apps/server/src/start-server.js";
import { createLogger } from "../../src/index.js";
import { type KillScenario, SUBTASK_RUNS_MS, scenarioChat } from "./kill-scenarios.js";

const root = join(import.meta.dirname, "../../../..");
const childScript = join(import.meta.dirname, "kill-child.ts");
let children: ChildProcess[] = [];
let servers: RunningServer[] = [];
let clients: TestClient[] = [];
let dirs: string[] = [];
afterEach(async () => {
  for (const c of clients) c.ws.terminate();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  children = [];
  servers = [];
  clients = [];
  dirs = [];
});

type Frame = ServerFrame & { seq?: number; thread_id?: string };

/** A real server process over `dbPath`, running the scenario; resolves with it and its URL. */
function spawnChild(dbPath: string, scenario: KillScenario, crashInCommit = false) {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@agentwire-chat/source", childScript],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_PATH: dbPath,
        KILL_SCENARIO: scenario,
        ...(crashInCommit && { CRASH_IN_COMMIT: "1" }),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(proc);
  let stderr = "";
  proc.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    proc.once("exit", (_c, signal) => resolve(signal)),
  );
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const entry = JSON.parse(line) as { url?: string };
      if (entry.url) resolve(entry.url);
    });
    proc.once("exit", (code) => reject(new Error(`child exited with ${code} before listening:\n${stderr}`)));
  });
  return { proc, url, exited };
}

/**
 * Starts a turn on a child process and SIGKILLs it the instant the client receives a frame matching
 * `killOn` (in the socket's own message handler, before anything else runs), or lets it die by
 * itself (`killOn` undefined). Returns every frame the client received.
 */
async function runUntilKilled(
  scenario: KillScenario,
  killOn: ((frame: Frame, seen: Frame[]) => boolean) | undefined,
  crashInCommit = false,
) {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-kill-"));
  dirs.push(dir);
  const dbPath = join(dir, "agentwire.db");
  const child = spawnChild(dbPath, scenario, crashInCommit);
  const client = await TestClient.open(`${(await child.url).replace("http", "ws")}/ws`);
  clients.push(client);
  const seen: Frame[] = [];
  client.ws.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as Frame;
    seen.push(frame);
    if (killOn?.(frame, seen)) child.proc.kill("SIGKILL");
  });
  client.command("chat_message", { content: `kill during ${scenario}` });
  expect(await child.exited).toBe("SIGKILL");
  await client.closed;
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.some(isDone)).toBe(false);
  const threadId = seen[0]?.thread_id as string;
  return { dbPath, seen, threadId };
}

/** The real start-up over the same file (restart recovery included), in this process. */
async function restart(dbPath: string, scenario: KillScenario) {
  // These kill points test the turn that ends `interrupted` (crash-continue.test.ts, the one that goes on).
  const env = { DATABASE_PATH: dbPath, PORT: "0", LOG_LEVEL: "silent", TURN_RECOVERY: "interrupt" };
  const server = await startServer(loadConfig(env), {
    services: { chat: scenarioChat(scenario) },
    logger: createLogger({ level: "silent" }),
  });
  servers.push(server);
  const client = await TestClient.open(`${server.url.replace("http", "ws")}/ws`);
  clients.push(client);
  return { server, client, repos: server.storage.repos };
}

/** resume_chat from 0: what the new process replays, and its chat_resumed. */
async function replayAll(client: TestClient, threadId: string) {
  client.command("resume_chat", { thread_id: threadId, last_seq: 0 });
  const frames = (await client.collectUntil((f) => f.type === "chat_resumed")) as Frame[];
  const resumed = frames.pop() as Extract<ServerFrame, { type: "chat_resumed" }>;
  return { frames, resumed };
}

async function storedRows(server: RunningServer, threadId: string): Promise<StoredMessage[]> {
  const res = await fetch(`${server.url}/api/threads/${threadId}/messages`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: StoredMessage[] }).messages;
}

/** The root's text as the client saw it, by the assistant step it belongs to. */
function rootText(frames: Frame[]): string {
  return frames
    .filter((f) => f.type === "chunk" && f.depth === 0 && !f.done && !f.thinking)
    .map((f) => (f.type === "chunk" ? f.content : ""))
    .join("");
}

/** The text streamed inside one subtask, as the client saw it. */
function subtaskText(frames: Frame[], id: string): string {
  return frames
    .filter((f) => f.type === "chunk" && f.parent_id === id && !f.done && !f.thinking)
    .map((f) => (f.type === "chunk" ? f.content : ""))
    .join("");
}

/** The checks every kill point shares: replay of what was seen, the text stored, no seq reused. */
async function expectRecovered(
  scenario: KillScenario,
  run: { dbPath: string; seen: Frame[]; threadId: string },
  expectation: "interrupted" | "waiting",
) {
  const { server, client, repos } = await restart(run.dbPath, scenario);
  const { frames, resumed } = await replayAll(client, run.threadId);
  // Every frame the client received is there, the same, in the same order, once.
  expect(frames.slice(0, run.seen.length)).toEqual(run.seen);
  const seqs = frames.map((f) => f.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  expect(resumed.replayed).toBe(frames.length);

  const rows = await storedRows(server, run.threadId);
  const storedText = rows
    .filter((m) => m.role === "assistant")
    .map((m) => (typeof m.content === "string" ? m.content : ""))
    .join("");
  // Every character of the root's text a client saw is in the stored answer.
  expect(storedText).toContain(rootText(run.seen));
  if (expectation === "interrupted") {
    expect((await repos.turns.latest("local", run.threadId))?.status).toBe("interrupted");
    expect(resumed.status).toBe("interrupted");
    expect(frames.filter(isDone)).toHaveLength(1);
    expect(frames.at(-1)).toMatchObject({ type: "chunk", done: true });
    expect(rows.at(-1)).toMatchObject({ role: "assistant", status: "interrupted" });
  } else {
    expect((await repos.turns.latest("local", run.threadId))?.status).toBe("waiting_user");
    expect(frames.some(isDone)).toBe(false);
  }
  return { server, client, repos, lastSeq: resumed.last_seq };
}

/** A new turn on the thread starts right after everything the old and new processes logged. */
async function expectNoSeqReused(client: TestClient, threadId: string, lastSeq: number) {
  client.command("chat_message", { thread_id: threadId, content: "still there?" });
  const next = await client.collectUntil(isDone);
  expectWellFormedTurn(next, lastSeq + 1);
}

describe("kill -9 of a real server process, then a restart over the same file", () => {
  it("mid-stream: the partial answer the client saw is stored, the turn ends interrupted with one done", async () => {
    const run = await runUntilKilled("stream", (_f, seen) => rootText(seen) === "Half an answer");
    const { client, lastSeq } = await expectRecovered("stream", run, "interrupted");
    await expectNoSeqReused(client, run.threadId, lastSeq);
  });

  it("mid parallel subtask: both subtasks' frames replay, the tree keeps both calls, interrupted", async () => {
    const run = await runUntilKilled(
      "parallel",
      (_f, seen) =>
        subtaskText(seen, "s1") === "part A: working" && subtaskText(seen, "s2") === "part B: working",
    );
    const { server, client, lastSeq } = await expectRecovered("parallel", run, "interrupted");
    const expected = (id: string) => ({
      id,
      status: "interrupted",
      is_error: true,
      // Every character of the subtask's text the client saw, stored with the turn.
      text: subtaskText(run.seen, id),
      // Timed by the logged frames up to the crash, not by the replay after the restart (a few ms).
      // Each frame is timed when it is logged: under load the subtask's first frame can be logged a
      // tick after the provider's delay began, so its distance to the last one may fall short of it.
      duration_ms: expect.toSatisfy((ms: number) => ms >= SUBTASK_RUNS_MS / 2),
    });
    const tree = (rows: StoredMessage[]) =>
      rows
        .findLast((m) => m.status === "interrupted")
        ?.execution_tree?.nodes.toSorted((a, b) => a.id.localeCompare(b.id));
    expect(tree(await storedRows(server, run.threadId))).toEqual([
      expect.objectContaining(expected("s1")),
      expect.objectContaining(expected("s2")),
    ]);
    // The replayed final message carries the same tree.
    const { frames } = await replayAll(client, run.threadId);
    const final = frames.findLast((f) => f.type === "message");
    expect(final?.type === "message" && final.message.execution_tree?.nodes).toEqual(
      expect.arrayContaining([
        expect.objectContaining(expected("s1")),
        expect.objectContaining(expected("s2")),
      ]),
    );
    await expectNoSeqReused(client, run.threadId, lastSeq);
    // The next turn pruned the crashed turn's frames: its subtask text lives on in the stored rows alone.
    const later = await replayAll(client, run.threadId);
    expect(later.frames.some((f) => f.type === "chunk" && f.depth === 1)).toBe(false);
    expect(tree(await storedRows(server, run.threadId))).toEqual([
      expect.objectContaining(expected("s1")),
      expect.objectContaining(expected("s2")),
    ]);
  });

  it("right after `question` is sent: the question the client saw is answerable after the restart (5 runs)", async () => {
    for (let i = 0; i < 5; i++) {
      const run = await runUntilKilled("question", (f) => f.type === "question");
      expect(run.seen.find((f) => f.type === "question")).toMatchObject({
        tool_call_id: "q1",
        question: "Proceed?",
      });
      const { client } = await expectRecovered("question", run, "waiting");
      client.command("answer", { thread_id: run.threadId, tool_call_id: "q1", answer: "yes" });
      const frames = (await client.collectUntil(isDone)) as Frame[];
      expect(frames.filter(isDone)).toHaveLength(1);
      expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
        message: { content: "You said: yes", status: "complete" },
      });
    }
  }, 60_000);

  it("right after `tool_approval_request` is sent: the approval the client saw is answerable after the restart (5 runs)", async () => {
    for (let i = 0; i < 5; i++) {
      const run = await runUntilKilled("approval", (f) => f.type === "tool_approval_request");
      const request = run.seen.find((f) => f.type === "tool_approval_request") as Extract<
        ServerFrame,
        { type: "tool_approval_request" }
      >;
      expect(request).toMatchObject({ type: "tool_approval_request", tool_name: "write_note" });
      const { client } = await expectRecovered("approval", run, "waiting");
      client.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
      const frames = (await client.collectUntil(isDone)) as Frame[];
      expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
        message: { content: "Wrote it: echo:hello", status: "complete" },
      });
    }
  }, 60_000);

  it("during a group commit: what the dying commit held was never sent, everything sent replays", async () => {
    const run = await runUntilKilled("commit", undefined, true);
    // The client got the first commit (up to the echo's result) and nothing of the step that died.
    expect(rootText(run.seen)).toBe("First part.");
    const { client, lastSeq } = await expectRecovered("commit", run, "interrupted");
    await expectNoSeqReused(client, run.threadId, lastSeq);
  });
});
