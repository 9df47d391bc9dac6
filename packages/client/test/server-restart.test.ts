import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createProviderRegistry } from "@agentwire/agents";
import { ScriptedProvider } from "@agentwire/agents/testing";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../apps/server/src/config.js";
import { type RunningServer, startServer } from "../../../apps/server/src/start-server.js";
import { createChatServices, createLogger } from "../../websocket/src/index.js";
import { until } from "../../websocket/test/support/until.js";
import type { Client } from "../src/index.js";
import { readAll, seqs } from "./support/frames.js";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.js";
import { testClient } from "./support/test-client.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
/** The websocket package's crash test server: its second model call streams "Half an answer", then hangs. */
const crashChild = fileURLToPath(new URL("../../websocket/test/chat/crash-child.ts", import.meta.url));

let child: ChildProcess | undefined;
let fresh: RunningServer | undefined;
let proxy: TcpProxy | undefined;
let client: Client | undefined;
let dir: string | undefined;
afterEach(async () => {
  client?.close();
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await proxy?.close();
  await fresh?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = fresh = proxy = client = dir = undefined;
});

/** Starts the crash server as a real process and resolves with its http URL. */
function spawnServer(dbPath: string): Promise<string> {
  const proc = spawn(process.execPath, ["--import", "tsx", "--conditions=@agentwire/source", crashChild], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", DATABASE_PATH: dbPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = proc;
  let stderr = "";
  proc.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const entry = JSON.parse(line) as { url?: string };
      if (entry.url) resolve(entry.url);
    });
    proc.once("exit", (code) => reject(new Error(`server exited with ${code} before listening:\n${stderr}`)));
  });
}

// Real server processes load the sources through tsx: seconds on a busy machine.
describe("the server killed and restarted mid-turn", { timeout: 60_000 }, () => {
  it("the SDK reconnects on its own and the turn ends with the status the server stored", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-client-restart-"));
    const dbPath = join(dir, "agentwire.db");
    const first = await spawnServer(dbPath);
    proxy = await startTcpProxy(first.replace("http", "ws"));
    // The http base works as the URL too.
    client = testClient(proxy.url.replace("ws:", "http:"));
    const turn = client.send({ content: "crash while you answer" });
    const reading = readAll(turn);
    await until(
      () => JSON.stringify(turn.tree?.root ?? []).includes("answer") || undefined,
      "the streamed text",
    );

    const proc = child as ChildProcess;
    const exited = new Promise((resolve) => proc.once("exit", (_code, signal) => resolve(signal)));
    proc.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const live = client;
    await until(() => !live.connected || undefined, "the drop");

    const providers = createProviderRegistry(
      {},
      {
        extraProviders: [new ScriptedProvider([{ text: "Back again." }])],
        extraDefaultModels: { scripted: "scripted-1" },
      },
    );
    fresh = await startServer(loadConfig({ DATABASE_PATH: dbPath, PORT: "0", LOG_LEVEL: "silent" }), {
      services: { chat: createChatServices({ providers, defaults: { provider: "scripted" } }) },
      logger: createLogger({ level: "silent" }),
    });
    proxy.retarget(fresh.url.replace("http", "ws"));

    const end = await turn.done;
    expect(end.status).toBe("interrupted");
    expect(await turn.text()).toBe("Half an answer");
    const frames = await reading;
    expect(seqs(frames)).toEqual(frames.map((_, i) => i + 1));
    expect(frames.filter((f) => f.type === "chunk" && f.done)).toHaveLength(1);
    expect(turn.errors).toEqual([]);
    expect(client.connected).toBe(true);

    // The thread goes on on the new server, through the same client.
    const next = client.send({ content: "are you back?", thread_id: await turn.threadId });
    expect(await next.text()).toBe("Back again.");
    expect((await readAll(next))[0]).toMatchObject({ seq: (seqs(frames).at(-1) ?? 0) + 1 });
  });
});
