import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTerminal, type Terminal } from "./support/terminal.js";

const root = join(import.meta.dirname, "../../..");
const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  packageManager: string;
  scripts: { start: string };
};

/**
 * `pnpm start` as a person runs it: the real pnpm, the root package.json's `start` script and the real
 * scripts/start.mjs, in a pseudo-terminal where Ctrl-C signals the whole foreground group. Only the
 * build is stood in for: the copy's apps/server/dist/main.js loads the server's source (with tsx), so
 * no build is needed and the source under test is what runs.
 */
describe("Ctrl-C under pnpm start", { timeout: 60_000 }, () => {
  let dir: string;
  let pnpm: string;
  let terminal: Terminal | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-pnpm-start-"));
    mkdirSync(join(dir, "scripts"));
    mkdirSync(join(dir, "apps/server/dist"), { recursive: true });
    copyFileSync(join(root, "scripts/start.mjs"), join(dir, "scripts/start.mjs"));
    const main = pathToFileURL(join(root, "apps/server/src/main.ts")).href;
    writeFileSync(join(dir, "apps/server/dist/main.js"), `await import(${JSON.stringify(main)});\n`);
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({
        name: "start-copy",
        private: true,
        type: "module",
        scripts: { start: rootPackage.scripts.start },
      }),
    );
    // The pnpm the README names, as a file to run directly (npx would add a shell of its own).
    pnpm = execFileSync("npx", ["-y", "-p", rootPackage.packageManager, "sh", "-c", "command -v pnpm"], {
      cwd: root,
      encoding: "utf8",
    }).trim();
  }, 60_000);

  afterAll(() => {
    terminal?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stops the server cleanly and exits 0, with no ELIFECYCLE", async () => {
    const tsx = pathToFileURL(createRequire(join(root, "package.json")).resolve("tsx")).href;
    terminal = openTerminal(`exec ${pnpm} start`, {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "",
        NODE_OPTIONS: `--import=${tsx} --conditions=@agentwire-chat/source`,
        PORT: "0",
        DATABASE_PATH: join(dir, "agentwire.db"),
        WORKSPACE_ROOT: join(dir, "workspace"),
        LOG_LEVEL: "info",
      },
    });
    await terminal.waitFor(/Ctrl-C stops it\./);

    // The terminal signals pnpm and the server; pnpm forwards its SIGINT too: one Ctrl-C, two signals.
    terminal.type("\x03");
    expect(await terminal.exited).toBe(0);
    const screen = terminal.screen();
    expect(screen).toMatch(/INFO {2}shutting down \{"signal":"SIGINT"\}/);
    expect(screen).toContain("shutdown complete");
    expect(screen).not.toContain("second signal");
    expect(screen).not.toContain("ELIFECYCLE");
  });
});
