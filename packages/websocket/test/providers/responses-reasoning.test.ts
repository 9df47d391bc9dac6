/**
 * OpenAI's Responses API through the whole server: the real `openai` client (OPENAI_API=responses) at
 * a local Responses server. The reasoning of each model call reaches the next call of the turn, also
 * when the turn is continued after a kill -9 from its checkpoint.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { isDone } from "@agentwire-chat/testkit/chat-harness";
import { TestClient, testDialect, testPostgresUrl } from "@agentwire-chat/testkit/harness";
import { openTestStorage } from "@agentwire-chat/testkit/test-storage";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../apps/server/src/config.js";
import { type RunningServer, startServer } from "../../../../apps/server/src/start-server.js";
import { createLogger } from "../../src/index.js";
import {
  call,
  completed,
  type ResponsesMock,
  type RsItem,
  reasoning,
  responsesChat,
  startResponsesMock,
  text,
} from "./responses-mock.js";

const root = join(import.meta.dirname, "../../../..");
const child = join(import.meta.dirname, "responses-child.ts");

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function mock(answer: Parameters<typeof startResponsesMock>[0]): Promise<ResponsesMock> {
  const m = await startResponsesMock(answer);
  cleanups.push(() => m.close());
  return m;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-responses-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The suite's database for `dir`: its SQLite file, or a Postgres database named after it. */
async function databaseEnv(dir: string): Promise<Record<string, string>> {
  const path = join(dir, "agentwire.db");
  return testDialect === "postgres"
    ? { DATABASE_PATH: path, DATABASE_URL: await testPostgresUrl(path) }
    : { DATABASE_PATH: path };
}

/** The real start-up over `dir`'s database, in this process, with Responses at `mock`. */
async function serve(dir: string, m: ResponsesMock): Promise<RunningServer> {
  const env = { ...(await databaseEnv(dir)), PORT: "0", LOG_LEVEL: "silent" };
  const server = await startServer(loadConfig(env), {
    services: { chat: responsesChat(m.url) },
    logger: createLogger({ level: "silent" }),
  });
  cleanups.push(() => server.close());
  return server;
}

async function open(url: string): Promise<TestClient> {
  const client = await TestClient.open(`${url.replace("http", "ws")}/ws`);
  cleanups.push(() => client.ws.terminate());
  return client;
}

type Frame = ServerFrame & { thread_id?: string };
const thinkingText = (frames: Frame[]) =>
  frames.map((f) => (f.type === "chunk" && f.thinking ? f.content : "")).join("");
const rootText = (frames: Frame[]) =>
  frames
    .map((f) => (f.type === "chunk" && !f.thinking && !f.done && f.depth === 0 ? f.content : ""))
    .join("");

/** The first call's output as the next call must send it back: reasoning item, call, the call's output. */
const firstCallItems = (output: unknown): RsItem[] => [
  {
    type: "reasoning",
    id: "rs_1",
    encrypted_content: "enc-first-call",
    summary: [{ type: "summary_text", text: "Echo it first." }],
  },
  { type: "function_call", call_id: "call_1", name: "echo", arguments: '{"text":"hi"}' },
  { type: "function_call_output", call_id: "call_1", output },
];

const firstCall = () => ({
  events: [
    ...reasoning("rs_1", "Echo it first.", "enc-first-call"),
    ...call("call_1", "echo", { text: "hi" }),
    completed,
  ],
});

describe("OPENAI_API=responses through the server", { timeout: 60_000 }, () => {
  it("a tool loop's second request carries the first call's reasoning item, call and output; the summary streams as thinking", async () => {
    const m = await mock((_body, n) =>
      n === 1 ? firstCall() : { events: [...text("Done", "."), completed] },
    );
    const server = await serve(tempDir(), m);
    const client = await open(server.url);
    client.command("chat_message", { content: "echo hi" });
    const frames = (await client.collectUntil(isDone)) as Frame[];
    expect(thinkingText(frames)).toBe("Echo it first.");
    expect(rootText(frames)).toBe("Done.");
    expect(m.bodies).toHaveLength(2);
    for (const body of m.bodies) {
      expect(body).toMatchObject({ model: "gpt-5", store: false, include: ["reasoning.encrypted_content"] });
    }
    const [user, ...rest] = m.bodies[1]!.input;
    expect(user).toMatchObject({ role: "user" });
    expect(rest).toEqual(firstCallItems(expect.stringContaining("hi")));
  });

  it("kill -9 during the second call: the checkpoint holds the reasoning item and the continued turn sends it", async () => {
    const m = await mock((_body, n) => {
      if (n === 1) return firstCall();
      if (n === 2) return { events: text("Half "), hold: true };
      return { events: [...text("All done."), completed] };
    });
    const dir = tempDir();
    const database = await databaseEnv(dir);
    const proc: ChildProcess = spawn(
      process.execPath,
      ["--import", "tsx", "--conditions=@agentwire-chat/source", child],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", ...database, RESPONSES_URL: m.url },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    cleanups.push(() => proc.exitCode === null && proc.signalCode === null && proc.kill("SIGKILL"));
    let stderr = "";
    proc.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise((resolve) => proc.once("exit", (_c, signal) => resolve(signal)));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
        const entry = JSON.parse(line) as { url?: string };
        if (entry.url) resolve(entry.url);
      });
      proc.once("exit", (code) =>
        reject(new Error(`child exited with ${code} before listening:\n${stderr}`)),
      );
    });

    const client = await open(url);
    const seen: Frame[] = [];
    client.ws.on("message", (data) => seen.push(JSON.parse(data.toString()) as Frame));
    client.command("chat_message", { content: "echo hi" });
    await until(() => rootText(seen).endsWith("Half "), "the second call's text");
    proc.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const threadId = seen.find((f) => f.thread_id)?.thread_id as string;
    expect(m.bodies).toHaveLength(2);
    expect(m.bodies[1]!.input.slice(1)).toEqual(firstCallItems(expect.any(String)));

    // What the dead process left: its checkpoint has the reasoning item on the assistant's thinking block.
    const storage = await openTestStorage(database.DATABASE_PATH as string);
    const turn = await storage.repos.turns.latest("local", threadId);
    await storage.close();
    expect(turn?.status).toBe("running");
    const saved = turn?.checkpoint as {
      state: { root: { messages: { role: string; thinking?: unknown }[] } };
    };
    expect(saved.state.root.messages.find((message) => message.role === "assistant")?.thinking).toEqual([
      {
        text: "Echo it first.",
        reasoning: { id: "rs_1", encryptedContent: "enc-first-call", summary: ["Echo it first."] },
      },
    ]);

    // The real start-up over the same database continues the turn from that checkpoint.
    const server = await serve(dir, m);
    await until(() => m.bodies.length === 3, "the continued turn's model call");
    expect(m.bodies[2]!.input.slice(1, 4)).toEqual(firstCallItems(expect.any(String)));
    await until(
      async () => (await server.storage.repos.turns.latest("local", threadId))?.status === "complete",
      "the continued turn to complete",
    );
  });
});
