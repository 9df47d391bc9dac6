/**
 * What the crash-continue tests share: a real server process over a SQLite file that a test kills -9,
 * the real start-up over the same file afterwards (in the test's process), and reading back what the
 * turn did. `useCrashHarness()` registers the clean-up of everything a test opened.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import { isDone } from "@agentwire-chat/testkit/chat-harness";
import { type ContinueScenario, continueChat } from "@agentwire-chat/testkit/continue-scenarios";
import { continueChild } from "@agentwire-chat/testkit/crash-server";
import { TestClient, testDialect, testPostgresUrl } from "@agentwire-chat/testkit/harness";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, expect } from "vitest";
import { loadConfig } from "../../../../apps/server/src/config.js";
import { type RunningServer, startServer } from "../../../../apps/server/src/start-server.js";
import { type ChatServices, createLogger } from "../../src/index.js";

const root = join(import.meta.dirname, "../../../..");

/** A frame as the log stamps it. */
export type Frame = ServerFrame & { seq: number; thread_id?: string };

const children: ChildProcess[] = [];
const servers: RunningServer[] = [];
const clients: TestClient[] = [];
const dirs: string[] = [];

/** After each test: every socket, child process, restarted server and temp dir it opened is gone. */
export function useCrashHarness(): void {
  afterEach(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    for (const s of servers.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
}

/** A fresh temp dir for one test's database and side-effect files. */
export function crashDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-continue-"));
  dirs.push(dir);
  return dir;
}

/** A client of `url` (http or ws base), closed after the test. */
export async function openClient(url: string): Promise<TestClient> {
  const client = await TestClient.open(`${url.replace("http", "ws")}/ws`);
  clients.push(client);
  return client;
}

/**
 * Where `dir`'s server keeps its rows and frames: its SQLite file, or with AGENTWIRE_TEST_DB=postgres
 * (the postgres project) a Postgres database named after it, which every process of the test shares.
 */
async function databaseEnv(dir: string): Promise<Record<string, string>> {
  const path = join(dir, "agentwire.db");
  return testDialect === "postgres"
    ? { DATABASE_PATH: path, DATABASE_URL: await testPostgresUrl(path) }
    : { DATABASE_PATH: path };
}

/** A real server process over `dir`'s database running the scenario; its URL, and its exit signal. */
export async function spawnChild(
  dir: string,
  scenario: ContinueScenario,
  extraEnv: Record<string, string> = {},
) {
  const database = await databaseEnv(dir);
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@agentwire-chat/source", continueChild],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        ...database,
        SIDE_EFFECT_DIR: dir,
        CONTINUE_SCENARIO: scenario,
        ...extraEnv,
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
    proc.once("exit", (code, signal) =>
      reject(new Error(`child exited with ${code ?? signal} before listening:\n${stderr}`)),
    );
  });
  return { proc, url, exited };
}

/** Starts the scenario's turn on a child process and SIGKILLs it once `killWhen` holds; returns what the client saw. */
export async function runUntilKilled(
  scenario: ContinueScenario,
  killWhen: (seen: Frame[], dir: string) => boolean,
) {
  const dir = crashDir();
  const child = await spawnChild(dir, scenario);
  const client = await openClient(await child.url);
  const seen: Frame[] = [];
  client.ws.on("message", (data) => seen.push(JSON.parse(data.toString()) as Frame));
  client.command("chat_message", { content: `crash during ${scenario}` });
  await until(() => killWhen(seen, dir), "the kill point");
  child.proc.kill("SIGKILL");
  expect(await child.exited).toBe("SIGKILL");
  await client.closed;
  expect(seen.some(isDone)).toBe(false);
  return { dir, seen, threadId: seen[0]?.thread_id as string };
}

/**
 * The real start-up over the same file, in this process: the turn left running continues. `configure`
 * changes the chat services before the start-up recovers the turn (the operator's settings then).
 */
export async function restart(
  dir: string,
  scenario: ContinueScenario,
  configure?: (chat: ChatServices) => void,
) {
  const env = { ...(await databaseEnv(dir)), PORT: "0", LOG_LEVEL: "silent" };
  const { chat, provider } = continueChat(scenario, dir, false);
  configure?.(chat);
  const server = await startServer(loadConfig(env), {
    services: { chat },
    logger: createLogger({ level: "silent" }),
  });
  servers.push(server);
  // The child wrote where this server reads: the suite's dialect, not a stray SQLite file.
  expect(server.storage.dialect).toBe(testDialect);
  const client = await openClient(server.url);
  return { server, client, repos: server.storage.repos, provider };
}

/** resume_chat from `lastSeq`, then every frame up to the turn's one `done` (replayed or live). */
export async function resumeToEnd(client: TestClient, threadId: string, lastSeq: number) {
  client.command("resume_chat", { thread_id: threadId, last_seq: lastSeq });
  const frames = (await client.collectUntil((f) => f.type === "chat_resumed")) as Frame[];
  const resumed = frames.pop() as Extract<ServerFrame, { type: "chat_resumed" }>;
  if (!frames.some(isDone)) frames.push(...((await client.collectUntil(isDone)) as Frame[]));
  return { frames, resumed };
}

/** The lines a side-effect tool wrote to `dir`: one per run. */
export const lines = (dir: string, tool: string) => {
  const file = join(dir, `${tool}.log`);
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
};

/** The thread's stored rows, over HTTP. */
export async function storedRows(server: RunningServer, threadId: string): Promise<StoredMessage[]> {
  const res = await fetch(`${server.url}/api/threads/${threadId}/messages`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: StoredMessage[] }).messages;
}

/** The `end` updates among the frames. */
export const ends = (frames: Frame[]) =>
  frames.filter((f) => f.type === "tool_call_update" && f.status === "end") as Extract<
    Frame,
    { type: "tool_call_update" }
  >[];

/** The text streamed inside the call `id` (a subtask or plan step), thinking aside. */
export const subtaskText = (frames: Frame[], id: string) =>
  frames
    .filter((f) => f.type === "chunk" && f.parent_id === id && !f.done && !f.thinking)
    .map((f) => (f.type === "chunk" ? f.content : ""))
    .join("");

/** The root's streamed text (depth 0), thinking aside. */
export const rootText = (frames: Frame[]) =>
  frames
    .filter((f) => f.type === "chunk" && f.depth === 0 && !f.done && !f.thinking)
    .map((f) => (f.type === "chunk" ? f.content : ""))
    .join("");
