import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";

const root = join(import.meta.dirname, "../../..");
const main = join(root, "apps/server/src/main.ts");
let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function spawnServer(env: Record<string, string>): ChildProcess {
  child = spawn(process.execPath, ["--import", "tsx", "--conditions=@agentwire-chat/source", main], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return child;
}

function exited(proc: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  proc.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => proc.once("exit", (code) => resolve({ code, stderr })));
}

/** Resolves with the URL from the "agentwire listening" log line. */
function listening(proc: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout! });
    lines.on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "agentwire listening" && entry.url) resolve(entry.url);
    });
    proc.once("exit", (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
}

// Each test spawns real server processes that load the sources through tsx: on a busy machine (a fresh
// container compiling them for the first time) that alone takes seconds, past the default 20 s.
describe("the server process", { timeout: 60_000 }, () => {
  it("exits 0 within 10 s of SIGTERM, closing its sockets with 1012", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-proc-"));
    const proc = spawnServer({ PORT: "0", DATABASE_PATH: join(dir, "agentwire.db") });
    const exit = exited(proc);
    const url = await listening(proc);
    const ws = new WebSocket(`${url.replace("http", "ws")}/ws`);
    const closed = new Promise<number>((resolve) => ws.once("close", resolve));
    await new Promise((resolve) => ws.once("open", resolve));

    const started = Date.now();
    proc.kill("SIGTERM");
    expect(await closed).toBe(1012);
    const { code } = await exit;
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("stops with a message naming the bad variable", async () => {
    const proc = spawnServer({ PORT: "not-a-port" });
    const { code, stderr } = await exited(proc);
    expect(code).toBe(1);
    expect(stderr).toMatch(/PORT: /);
  });
});
