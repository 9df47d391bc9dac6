/**
 * Issue 38: a queued message survives kill -9 of the server running the turn, and runs once the
 * restarted server's recovery has ended (or continued to its end) the cut turn. Real processes over
 * the suite's database (SQLite file, or Postgres with AGENTWIRE_TEST_DB=postgres).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createProviderRegistry } from "@agentwire-chat/agents";
import { ScriptedProvider } from "@agentwire-chat/agents/testing";
import type { QueuedMessage, StoredMessage } from "@agentwire-chat/protocol";
import {
  countRows,
  openTestStorage,
  TestClient,
  testDialect,
  testPostgresUrl,
} from "@agentwire-chat/testkit/harness";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../apps/server/src/config.js";
import { type RunningServer, startServer } from "../../../../apps/server/src/start-server.js";
import { createChatServices, createLogger } from "../../src/index.js";
import { lastUser, seen } from "./conversation-helpers.js";

const root = join(import.meta.dirname, "../../../..");
const childScript = join(import.meta.dirname, "queue-kill-child.ts");
let child: ChildProcess | undefined;
let fresh: RunningServer | undefined;
const clients: TestClient[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const c of clients.splice(0)) c.ws.terminate();
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  child = undefined;
  await fresh?.close();
  fresh = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function databaseEnv(d: string): Promise<Record<string, string>> {
  const path = join(d, "agentwire.db");
  return testDialect === "postgres"
    ? { DATABASE_PATH: path, DATABASE_URL: await testPostgresUrl(path) }
    : { DATABASE_PATH: path };
}

async function spawnChild(d: string): Promise<{ url: string; exited: Promise<NodeJS.Signals | null> }> {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@agentwire-chat/source", childScript],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", ...(await databaseEnv(d)) },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child = proc;
  let stderr = "";
  proc.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    proc.once("exit", (_c, signal) => resolve(signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const entry = JSON.parse(line) as { url?: string };
      if (entry.url) resolve(entry.url);
    });
    proc.once("exit", (code, signal) => reject(new Error(`child exited with ${code ?? signal}:\n${stderr}`)));
  });
  return { url, exited };
}

async function open(url: string): Promise<TestClient> {
  const client = await TestClient.open(`${url.replace("http", "ws")}/ws`);
  clients.push(client);
  return client;
}

async function get<T>(url: string): Promise<T> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

describe("a queued message and kill -9", { timeout: 90_000 }, () => {
  it.each([
    "interrupt",
    "continue",
  ] as const)("survives the kill and runs after recovery (TURN_RECOVERY=%s) ends the cut turn", async (recovery) => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-queue-kill-"));
    const spawned = await spawnChild(dir);
    const client = await open(spawned.url);
    client.command("chat_message", { content: "first" });
    const threadId = (await client.next("thread")).thread_id as string;
    await client.next("chunk", { where: (f) => f.content === "an answer", timeoutMs: 20_000 });
    client.command(
      "chat_message",
      { content: "queued survives", thread_id: threadId, on_busy: "queue" },
      "q1",
    );
    const queued = await client.next("message_queued");
    expect(queued).toMatchObject({ mode: "queue", position: 1, request_id: "q1" });

    child?.kill("SIGKILL");
    expect(await spawned.exited).toBe("SIGKILL");
    await client.closed;
    // message_queued answered: the queued row is in the database the dead process left.
    const left = await openTestStorage(join(dir, "agentwire.db"));
    try {
      expect(await countRows(left, "queued_messages"), "queued rows after the kill").toBe(1);
    } finally {
      await left.close();
    }

    const provider = new ScriptedProvider((request) => ({ text: `re:${lastUser(request)}` }));
    const providers = createProviderRegistry(
      {},
      { extraProviders: [provider], extraDefaultModels: { scripted: "scripted-1" } },
    );
    fresh = await startServer(
      loadConfig({ ...(await databaseEnv(dir)), PORT: "0", LOG_LEVEL: "silent", TURN_RECOVERY: recovery }),
      {
        services: { chat: createChatServices({ providers, defaults: { provider: "scripted" } }) },
        logger: createLogger({ level: "silent" }),
      },
    );
    expect(fresh.storage.dialect).toBe(testDialect);
    const base = `${fresh.url}/api/threads/${threadId}`;
    let last: StoredMessage[] = [];
    const messages = await until(
      async () => {
        const { messages: m } = await get<{ messages: StoredMessage[] }>(`${base}/messages`);
        last = m;
        const answered = m.at(-1)?.role === "assistant" && m.at(-2)?.id === queued.message_id;
        return answered ? m : undefined;
      },
      "the queued message's turn after recovery",
      { timeoutMs: 30_000, everyMs: 50 },
    ).catch(async (error: Error) => {
      // Say where it stopped: the branch, the queue, the latest turn.
      const queue = await get<{ queued: QueuedMessage[] }>(`${base}/queue`);
      const turn = await fresh?.storage.repos.turns.latest("local", threadId);
      const stored = fresh ? await countRows(fresh.storage, "messages") : -1;
      const queuedRows = fresh ? await countRows(fresh.storage, "queued_messages") : -1;
      throw new Error(
        `${error.message}\nbranch: ${JSON.stringify(last.map((m) => [m.role, m.content, m.status]))}\nqueue: ${JSON.stringify(queue.queued.map((q) => q.content))}\nlatest turn: ${turn?.status}\nmessages rows: ${stored}, queued_messages rows: ${queuedRows}`,
      );
    });
    const user = messages.find((m) => m.id === queued.message_id);
    expect(user).toMatchObject({ role: "user", content: "queued survives" });
    expect(messages[0]).toMatchObject({ role: "user", content: "first" });
    expect(messages.at(-1)).toMatchObject({ content: "re:queued survives", status: "complete" });
    // It followed the cut turn's end: its parent is the row before it on the branch.
    const at = messages.findIndex((m) => m.id === queued.message_id);
    expect(user?.parent_message_id).toBe(messages[at - 1]?.id);
    expect((await get<{ queued: QueuedMessage[] }>(`${base}/queue`)).queued).toEqual([]);
    // The model ran the queued message once, with the first message on its path.
    const forQueued = provider.requests.filter((r) => lastUser(r) === "queued survives");
    expect(forQueued).toHaveLength(1);
    expect(seen(forQueued[0])[0]).toBe("user:first");
    const turn = await fresh.storage.repos.turns.latest("local", threadId);
    expect(turn?.status).toBe("complete");
  });
});
