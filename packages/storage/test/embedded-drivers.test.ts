import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("openStorage", () => {
  it(
    "opens the embedded SQLite default without ever loading the Postgres driver",
    { timeout: 60_000 },
    () => {
      dir = mkdtempSync(join(tmpdir(), "agentwire-embedded-"));
      const script = fileURLToPath(new URL("./support/open-embedded.ts", import.meta.url));
      const out = execFileSync(
        process.execPath,
        ["--import", "tsx", "--conditions=@agentwire-chat/source", script, join(dir, "a.db")],
        { encoding: "utf8", cwd: fileURLToPath(new URL("..", import.meta.url)) },
      );
      // The check can fail both ways: the SQLite driver must be seen loaded, pg must not.
      expect(JSON.parse(out.trim().split("\n").at(-1) ?? "{}")).toEqual({
        ready: true,
        pg: false,
        betterSqlite3: true,
      });
    },
  );
});
