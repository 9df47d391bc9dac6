import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../../..");
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Runs `agentwire ...args` from source and returns its output and every module it loaded. */
function run(args: string[]) {
  dir = mkdtempSync(join(tmpdir(), "agentwire-cli-"));
  const record = join(dir, "imports.txt");
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      "./apps/cli/test/support/record-imports.mjs",
      "--conditions=@agentwire-chat/source",
      "apps/cli/src/main.ts",
      ...args,
    ],
    { cwd: root, env: { PATH: process.env.PATH ?? "", RECORD_IMPORTS: record }, encoding: "utf8" },
  );
  return { ...result, imports: readFileSync(record, "utf8").split("\n").filter(Boolean) };
}

// What makes a start-up slow: the server, the database layers, the agent core.
const HEAVY =
  /packages\/(websocket|agents)\/|node_modules\/(\.pnpm\/)?(fastify|drizzle-orm|better-sqlite3|pg|openai|@anthropic-ai)/;

describe("agentwire", () => {
  it("prints its usage for --help without loading the server, the database or the agent core", () => {
    const help = run(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("usage: agentwire <command>");
    expect(help.imports.some((url) => url.includes("apps/cli/src/run-cli.ts"))).toBe(true);
    expect(help.imports.filter((url) => HEAVY.test(url))).toEqual([]);
  });

  it("loads no server module for chat --help either, and says which options and variables it takes", () => {
    const help = run(["chat", "--help"]);
    expect(help.status).toBe(0);
    for (const text of ["--url URL", "AGENTWIRE_URL", "--token T", "AGENTWIRE_TOKEN", "--verbose"]) {
      expect(help.stdout).toContain(text);
    }
    expect(help.imports.some((url) => url.includes("apps/cli/src/commands/chat-command.ts"))).toBe(true);
    expect(help.imports.filter((url) => HEAVY.test(url))).toEqual([]);
  });

  it("answers an unknown command with its usage on stderr and exit code 2", () => {
    const unknown = run(["chta"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("usage: agentwire <command>");
  });
});
