import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { openTerminal, type Terminal } from "./support/terminal.js";

const root = join(import.meta.dirname, "../../..");
// `exec`: the shell `script` starts would die of the SIGINT itself (an interactive shell is not in
// the foreground group); what is tested is the server's exit code.
const server = `exec node --import tsx --conditions=@agentwire-chat/source ${join(root, "apps/server/src/main.ts")}`;
let dir: string;
let terminal: Terminal | undefined;
let child: ChildProcess | undefined;
afterEach(() => {
  terminal?.kill();
  if (child && child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  dir = mkdtempSync(join(tmpdir(), "agentwire-start-"));
  return { PATH: process.env.PATH ?? "", PORT: "0", DATABASE_PATH: join(dir, "agentwire.db"), ...extra };
}

// Each test spawns real server processes that load the sources through tsx: on a busy machine (a fresh
// container compiling them for the first time) that alone takes seconds, past the default 20 s.
describe("start-up output", { timeout: 60_000 }, () => {
  it("on a terminal: a short summary (URL, no provider, database), no JSON, and Ctrl-C exits 0", async () => {
    terminal = openTerminal(server, { cwd: root, env: env({ TERM: "xterm" }) });
    await terminal.waitFor(/Ctrl-C stops it\./);
    const screen = terminal.screen();
    expect(screen).toMatch(/agentwire is listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(screen).toContain(
      "no provider configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_COMPAT_ENDPOINTS",
    );
    expect(screen).toContain(`SQLite ${join(dir, "agentwire.db")}`);
    // Info lines (the config, "Server listening", each request) stay off the terminal.
    expect(screen).not.toContain('{"level"');
    expect(screen).not.toContain("INFO");

    terminal.type("\x03");
    expect(await terminal.exited).toBe(0);
    expect(terminal.screen()).not.toMatch(/second signal|ERROR|FATAL/);
  });

  it("with LOG_LEVEL set on a terminal: the summary, then plain log lines at that level", async () => {
    terminal = openTerminal(server, { cwd: root, env: env({ LOG_LEVEL: "info" }) });
    await terminal.waitFor(/Ctrl-C stops it\./);
    expect(terminal.screen()).toMatch(/\d\d:\d\d:\d\d INFO {2}agentwire listening \{"url":"http:/);
    expect(terminal.screen()).toMatch(/logs +LOG_LEVEL=info/);
    terminal.type("\x03");
    await terminal.waitFor(/INFO {2}shutdown complete/);
    expect(await terminal.exited).toBe(0);
  });

  it("not on a terminal: JSON lines only, and no request lines at info", async () => {
    child = spawn(
      process.execPath,
      ["--import", "tsx", "--conditions=@agentwire-chat/source", "apps/server/src/main.ts"],
      {
        cwd: root,
        env: env(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const lines: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child!.stdout! }).on("line", (line) => {
        lines.push(line);
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "agentwire listening" && entry.url) resolve(entry.url);
      });
      child!.once("exit", (code) => reject(new Error(`exited with ${code}`)));
    });
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const exit = new Promise((resolve) => child!.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(lines.length).toBeGreaterThan(2);
    const entries = lines.map((line) => JSON.parse(line) as { msg: string });
    expect(entries.map((e) => e.msg)).toContain("shutdown complete");
    expect(entries.map((e) => e.msg)).not.toContain("incoming request");
    expect(entries.map((e) => e.msg)).not.toContain("request completed");
    expect(lines.join("\n")).not.toContain("agentwire is listening");
  });
});
