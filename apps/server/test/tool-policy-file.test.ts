import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { scriptedProviderModule } from "@agentwire-chat/testkit/fixtures";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ConfigError, loadConfig } from "../src/config.js";
import { reloadOnSighup } from "../src/tool-policy-file.js";

const root = join(import.meta.dirname, "../../..");
const main = join(root, "apps/server/src/main.ts");
const provider = scriptedProviderModule;
const dir = mkdtempSync(join(tmpdir(), "agentwire-tool-policy-"));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("TOOL_POLICY_FILE at start-up", () => {
  it("reads a valid file; without one there is none (today's policy)", () => {
    const path = file("good.json", { users: { alice: { classes: { secrets: "allow" } } } });
    expect(loadConfig({ TOOL_POLICY_FILE: path }).toolPolicyFile).toEqual({
      path,
      file: { users: { alice: { classes: { secrets: "allow" } } } },
    });
    expect(loadConfig({}).toolPolicyFile).toBeUndefined();
  });

  it.each([
    [
      "a bad class rule",
      { users: { alice: { classes: { network: "sometimes" } } } },
      /TOOL_POLICY_FILE: user "alice": classes\.network: /,
    ],
    [
      "an unknown field in a group",
      { groups: { ops: { members: ["bob"], clases: {} } } },
      /TOOL_POLICY_FILE: group "ops": \(entry\): .*clases/,
    ],
    [
      "a group without members",
      { groups: { ops: { classes: {} } } },
      /TOOL_POLICY_FILE: group "ops": members: /,
    ],
    ["not JSON", "{ users:", /TOOL_POLICY_FILE: .*bad-.*\.json not JSON/],
  ])("refuses %s with the user or group and field named", (_what, content, message) => {
    const path = file(`bad-${Math.random().toString(36).slice(2)}.json`, content);
    expect(() => loadConfig({ TOOL_POLICY_FILE: path })).toThrow(ConfigError);
    expect(() => loadConfig({ TOOL_POLICY_FILE: path })).toThrow(message);
  });

  it("refuses a missing file", () => {
    expect(() => loadConfig({ TOOL_POLICY_FILE: join(dir, "missing.json") })).toThrow(
      /TOOL_POLICY_FILE: .*missing\.json cannot be read/,
    );
  });

  it("reloadOnSighup wires SIGHUP to the reload", () => {
    const handlers = new Map<string, () => void>();
    let reloads = 0;
    reloadOnSighup(
      () => {
        reloads++;
      },
      { on: ((signal: string, handler: () => void) => handlers.set(signal, handler)) as never },
    );
    expect([...handlers.keys()]).toEqual(["SIGHUP"]);
    handlers.get("SIGHUP")?.();
    expect(reloads).toBe(1);
  });
});

/** A server process; `logged` resolves on the first JSON log line (from now on) with that msg. */
function spawnServer(env: Record<string, string>) {
  const proc = spawn(process.execPath, ["--import", "tsx", "--conditions=@agentwire-chat/source", main], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      DATABASE_PATH: join(dir, `${Math.random().toString(36).slice(2)}.db`),
      AGENTWIRE_SCRIPTED_PROVIDER: provider,
      DEFAULT_PROVIDER: "scripted",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(proc);
  let stderr = "";
  proc.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const waiters: { msg: string; resolve: (entry: Record<string, unknown>) => void }[] = [];
  createInterface({ input: proc.stdout! }).on("line", (line) => {
    const entry = JSON.parse(line) as Record<string, unknown>;
    for (const w of waiters.splice(0)) {
      if (entry.msg === w.msg) w.resolve(entry);
      else waiters.push(w);
    }
  });
  const logged = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve) => waiters.push({ msg, resolve }));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    proc.once("exit", (code) => resolve({ code, stderr })),
  );
  return { proc, logged, exited };
}

/** The names of the tools the user's next turn is given (the scripted model lists them). */
async function toolsOfATurn(url: string): Promise<string[]> {
  const ws = new WebSocket(`${url.replace("http", "ws")}/ws`);
  await new Promise((resolve) => ws.once("open", resolve));
  const text = new Promise<string>((resolve) => {
    let answer = "";
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as ServerFrame;
      if (frame.type === "chunk" && frame.depth === 0) answer += frame.content;
      if (frame.type === "chunk" && frame.done === true) resolve(answer);
    });
  });
  ws.send(JSON.stringify({ command: "chat_message", data: { content: "which tools" } }));
  const answer = await text;
  ws.close();
  return answer.replace(/^tools: /, "").split(",");
}

// Real server processes loading the sources through tsx: seconds each on a busy machine.
describe("TOOL_POLICY_FILE in a server process", { timeout: 90_000 }, () => {
  it("a bad file stops start-up with exit 1 and the user and field named", async () => {
    const path = file("bad-start.json", { users: { local: { classes: { network: "never" } } } });
    const server = spawnServer({ TOOL_POLICY_FILE: path });
    const { code, stderr } = await server.exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/TOOL_POLICY_FILE: user "local": classes\.network: /);
  });

  it("SIGHUP reloads the file for the next turn; a bad file on reload is logged and the old policy stays", async () => {
    const path = file("live.json", { users: { local: { classes: { network: "off" } } } });
    const server = spawnServer({ TOOL_POLICY_FILE: path });
    const url = String((await server.logged("agentwire listening")).url);
    const before = await toolsOfATurn(url);
    expect(before).toContain("read_file");
    expect(before).not.toContain("web_fetch");

    file("live.json", { users: { someone_else: { classes: { network: "off" } } } });
    const reloaded = server.logged("TOOL_POLICY_FILE reloaded");
    server.proc.kill("SIGHUP");
    await reloaded;
    expect(await toolsOfATurn(url)).toContain("web_fetch");

    file("live.json", { users: { local: { classes: { network: "nope" } } } });
    const refused = server.logged("TOOL_POLICY_FILE reload refused; the previous policy stays");
    server.proc.kill("SIGHUP");
    expect(String((await refused).reason)).toMatch(/user "local": classes\.network/);
    expect(server.proc.exitCode).toBeNull();
    expect(await toolsOfATurn(url)).toContain("web_fetch");
  });
});
