/**
 * `agentwire chat` across dropped sockets, through a TCP proxy in front of a real server: the SDK
 * reconnects and resumes the turn, and the CLI shows it once, as if nothing happened.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { killHard, restartServer, spawnCrashServer } from "@agentwire-chat/testkit/crash-server";
import { startTcpProxy, type TcpProxy } from "@agentwire-chat/testkit/tcp-proxy";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/src/start-server.js";
import { runCliProcess } from "./support/cli-process.js";
import { type PtyRun, runInPty } from "./support/pty-screen.js";

let server: ChatTestServer | undefined;
let child: ChildProcess | undefined;
let fresh: RunningServer | undefined;
let proxy: TcpProxy | undefined;
let dir: string | undefined;
const runs: PtyRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) run.kill();
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await proxy?.close();
  await server?.close();
  await fresh?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = child = fresh = proxy = dir = undefined;
});

// Real server processes load the sources through tsx: seconds on a busy machine.
describe("agentwire chat when the socket drops", { timeout: 60_000 }, () => {
  it("resumes a one-shot turn after the socket was cut twice, and shows every part once", async () => {
    const released = gate();
    server = await startChatServer((request) => {
      const first = request.messages[0];
      if (first?.role === "user" && first.content === "sub") return { text: "sub done" };
      return request.messages.some((m) => m.role === "tool")
        ? { text: "After the cut." }
        : {
            text: "Before the cut. ",
            hold: released.promise,
            toolCalls: [{ id: "p1", name: "run_subtask", args: { title: "Part", instructions: "sub" } }],
          };
    });
    const cut = await startTcpProxy(server.wsUrl);
    proxy = cut;
    const run = runCliProcess(["chat", "go on", "--url", cut.url]);
    await run.printed("Before the cut.");
    cut.cut();
    await until(() => cut.connections() >= 2 || undefined, "the first reconnect");
    cut.cut();
    await until(() => cut.connections() >= 3 || undefined, "the second reconnect");
    released.open();

    expect(await run.exit).toBe(0);
    expect(run.err()).toBe("");
    expect(
      run
        .out()
        .replace(/thread \S+/, "thread ID")
        .replace(/\d+ ms/, "N ms"),
    ).toBe(
      [
        "· thread ID",
        "Before the cut. ",
        "  ▸ Part",
        "  ✓ Part (N ms)",
        "After the cut.",
        "· tokens not reported, 3 model calls, 0 tool calls, 1 subtask",
        "",
      ].join("\n"),
    );
    // The message went out once: one thread, one user message.
    const threads = await server.repos.threads.list("local");
    expect(threads).toHaveLength(1);
    const rows = await server.repos.messages.list("local", threads[0]?.id ?? "");
    expect(rows.filter((r) => r.role === "user")).toHaveLength(1);
  });

  it("reconnects an interactive chat to a restarted server: the cut turn ends, the next message is answered", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-cli-restart-"));
    const dbPath = join(dir, "agentwire.db");
    const crash = spawnCrashServer(dbPath);
    child = crash.proc;
    const cut = await startTcpProxy((await crash.url).replace("http", "ws"));
    proxy = cut;
    const run = runInPty(["chat", "--url", cut.url]);
    runs.push(run);
    await run.waitFor(/^>$/m);
    run.type("crash while you answer\r");
    await run.waitFor(/Half an answer/);

    expect(await killHard(crash.proc)).toBe("SIGKILL");
    // While the server is gone the status area says so, instead of a spinner that looks alive.
    await run.waitFor(/^\S connection lost · reconnecting…$/m);
    fresh = await restartServer(dbPath, [{ text: "Back again." }]);
    cut.retarget(fresh.url.replace("http", "ws"));

    const ended = await run.waitFor(
      /^Half an answer\n(.*\n)*↯ interrupted: the server stopped during this turn .*\n>$/m,
      30_000,
    );
    expect(ended).not.toContain("connection to the server is closed");
    run.type("are you back?\r");
    await run.waitFor(/^Back again\.$/m);
    run.type("\x04");
    expect(await run.exit).toBe(0);
    const screen = run.screen();
    expect(screen.match(/Half an answer/g)).toHaveLength(1);
    expect(screen).not.toContain("! ");
    // Both turns are the one thread's, on the restarted server.
    const rows = await fresh.storage.repos.messages.list(
      "local",
      (await fresh.storage.repos.threads.list("local"))[0]?.id ?? "",
    );
    expect(rows.map((r) => r.role === "assistant" && r.status)).toContain("interrupted");
    expect(rows.at(-1)).toMatchObject({ role: "assistant", content: "Back again.", status: "complete" });
  });
});
