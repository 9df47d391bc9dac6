import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mcpTestServer } from "@agentwire-chat/testkit/fixtures";
import { afterEach, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../../..");
const mcpServer = mcpTestServer;
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function agentwire(args: string[], env: Record<string, string>) {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@agentwire-chat/source", "apps/cli/src/main.ts", ...args],
    { cwd: root, env: { PATH: process.env.PATH ?? "", ...env } },
  );
  let out = "";
  let err = "";
  proc.stdout.on("data", (d) => {
    out += d;
  });
  proc.stderr.on("data", (d) => {
    err += d;
  });
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    proc.once("exit", (code) => resolve({ code, out, err })),
  );
}

// Each test spawns real server processes that load the sources through tsx: on a busy machine (a fresh
// container compiling them for the first time) that alone takes seconds, past the default 20 s.
describe("agentwire mcp approve", { timeout: 60_000 }, () => {
  it("pins a configured server's current tools where the server reads them, and refuses an unknown one", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-mcp-cli-"));
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ servers: { tools: { command: process.execPath, args: [mcpServer] } } }),
    );
    const env = { MCP_CONFIG_PATH: config, DATABASE_PATH: join(dir, "agentwire.db") };

    const ok = await agentwire(["mcp", "approve", "tools"], env);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("approved tools: ");
    const pins = JSON.parse(readFileSync(join(dir, "mcp-pins.json"), "utf8")) as {
      pins: Record<string, string>;
    };
    expect(pins.pins.tools).toMatch(/^sha256:[0-9a-f]{64}$/);

    const unknown = await agentwire(["mcp", "approve", "nope"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("not configured");
  });
});
