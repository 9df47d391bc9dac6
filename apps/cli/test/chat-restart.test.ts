/**
 * `agentwire chat` across a kill -9 of a real server process whose turn then continues on the
 * restarted server (docs/protocol.md, A crashed turn continues): what the cut attempt streamed stays
 * apart from the new one, under a line with the server's reason.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RESTART_DETAIL } from "@agentwire-chat/protocol";
import type { ContinueScenario } from "@agentwire-chat/testkit/continue-scenarios";
import { killHard, restartContinuing, spawnContinueServer } from "@agentwire-chat/testkit/crash-server";
import { startTcpProxy, type TcpProxy } from "@agentwire-chat/testkit/tcp-proxy";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/src/start-server.js";
import { runCliProcess } from "./support/cli-process.js";

let child: ChildProcess | undefined;
let fresh: RunningServer | undefined;
let proxy: TcpProxy | undefined;
let dir: string | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await proxy?.close();
  await fresh?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = fresh = proxy = dir = undefined;
});

/** A one-shot `chat` of the scenario's message, the server killed once the CLI printed `cutAt`, then restarted. */
async function chatAcrossRestart(scenario: ContinueScenario, cutAt: string, flags: string[] = []) {
  dir = mkdtempSync(join(tmpdir(), "agentwire-cli-attempts-"));
  const server = spawnContinueServer(dir, scenario);
  child = server.proc;
  const cut = await startTcpProxy((await server.url).replace("http", "ws"));
  proxy = cut;
  const run = runCliProcess(["chat", `crash during ${scenario}`, "--url", cut.url, ...flags]);
  await run.printed(cutAt);
  expect(await killHard(server.proc)).toBe("SIGKILL");
  fresh = await restartContinuing(dir, scenario);
  cut.retarget(fresh.url.replace("http", "ws"));
  expect(await run.exit).toBe(0);
  expect(run.err()).toBe("");
  return run
    .out()
    .replace(/thread \S+/, "thread ID")
    .replace(/\d+ ms/g, "N ms");
}

// Real server processes load the sources through tsx: seconds on a busy machine.
describe("agentwire chat when its server is killed and the turn continues", { timeout: 90_000 }, () => {
  it("a turn cut in its first model call: the cut text, the server's reason, then the new answer on its own line", async () => {
    const out = await chatAcrossRestart("first-call", "Half a start");
    expect(out).toBe(
      [
        "· thread ID",
        "Half a start",
        `↯ interrupted: ${RESTART_DETAIL.rerun}`,
        "Started over.",
        // The cut call never ended: the ledger counts the one that answered.
        "· tokens not reported, 1 model call, 0 tool calls",
        "",
      ].join("\n"),
    );
  });

  it("a subtask cut in its first model call: a line on the subtask says it restarted, with --verbose the text it had", async () => {
    const out = await chatAcrossRestart("subtask-first-call", "▸ R", ["--verbose"]);
    const lines = out.split("\n");
    // The restart at the root, then the subtask's own line, before its one finish line.
    const root = lines.indexOf(`↯ ${RESTART_DETAIL.continues}`);
    const subtask = lines.indexOf(`  ↯ R: ${RESTART_DETAIL.subtaskRerun}`);
    const finished = lines.indexOf("  ✓ R (N ms)");
    expect([root, subtask, finished].every((i) => i > 0)).toBe(true);
    expect(root).toBeLessThan(subtask);
    expect(subtask).toBeLessThan(finished);
    expect(lines[finished + 1]).toBe("    R whole");
    expect(
      out.endsWith("Restarted and done.\n· tokens not reported, 3 model calls, 0 tool calls, 1 subtask\n"),
    ).toBe(true);
  });
});
