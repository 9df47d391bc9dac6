import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RESTART_DETAIL } from "@agentwire-chat/protocol";
import type { ContinueScenario } from "@agentwire-chat/testkit/continue-scenarios";
import { killHard, restartContinuing, spawnContinueServer } from "@agentwire-chat/testkit/crash-server";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import { startTcpProxy, type TcpProxy } from "@agentwire-chat/testkit/tcp-proxy";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../server/src/start-server.js";
import { ChatPage } from "./chat-page.js";
import { buildApp, serveApp, WEB_ROOT } from "./serve-app.js";

/** Where the page's picture after the restart goes, to look at (not a snapshot compared). */
const SHOT_DIR = join(WEB_ROOT, "test-results");

/** What the page shows of the attempts a restart cut: each summary line, whether it is open, its text. */
function cutAttempts(page: Page) {
  return page.$$eval("[data-cut]", (nodes) =>
    nodes.map((n) => ({
      summary: (n.querySelector("summary") ?? n).textContent ?? "",
      open: n instanceof HTMLDetailsElement ? n.open : undefined,
      text: n.querySelector(".md")?.textContent ?? "",
      inCard: n.closest("[data-card-id]")?.getAttribute("data-card-id") ?? null,
    })),
  );
}

/** The answer's own text runs at the root, each as drawn: a cut attempt's text is never one of them. */
function rootTexts(page: Page) {
  return page.$$eval(".bubble.assistant > .md", (nodes) => nodes.map((n) => n.textContent ?? ""));
}

/**
 * The real server as a process, killed with -9 in the middle of a turn and started again over its
 * database: the turn continues (docs/protocol.md, A crashed turn continues). The page stays on one
 * origin, a TCP proxy that follows the server to its new port, and is loaded again at the end.
 */
describe("the web page across a restart that continues the turn", { timeout: 120_000 }, () => {
  let browser: Browser;
  let child: ChildProcess | undefined;
  let fresh: RunningServer | undefined;
  let proxy: TcpProxy | undefined;
  let workspace: string;
  let dist: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-restarted-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    browser = await launchBrowser();
  });

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await proxy?.close();
    await fresh?.close();
    child = proxy = fresh = undefined;
  });

  afterAll(async () => {
    await browser?.close();
    for (const d of [...dirs, workspace]) if (d) rmSync(d, { recursive: true, force: true });
  });

  /** Sends the scenario's message, kills the server once `cutAt` shows, restarts it; the page, idle again. */
  async function crashAndContinue(scenario: ContinueScenario, cutAt: string) {
    const dir = mkdtempSync(join(tmpdir(), "agentwire-web-restarted-db-"));
    dirs.push(dir);
    const server = spawnContinueServer(dir, scenario);
    child = server.proc;
    proxy = await startTcpProxy((await server.url).replace("http", "ws"));
    const origin = new URL(proxy.url).origin.replace("ws:", "http:");
    const page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
    await serveApp(page, origin, dist);
    const chat = new ChatPage(page);
    await chat.open(origin);
    await chat.send(`crash during ${scenario}`);
    await chat.waitForText(cutAt, 30_000);
    expect(await killHard(server.proc)).toBe("SIGKILL");
    fresh = await restartContinuing(dir, scenario);
    proxy.retarget(fresh.url.replace("http", "ws"));
    return { page, chat, origin };
  }

  it("a turn cut in its first model call: the cut text is apart, collapsed and marked, the new attempt is the answer; a reload shows the same", async () => {
    const { page, chat, origin } = await crashAndContinue("first-call", "Half a start");
    await chat.waitForText("Started over.", 30_000);
    await chat.waitForIdle();
    const expected = [
      {
        summary: `Interrupted: ${RESTART_DETAIL.rerun}`,
        open: false,
        text: "Half a start",
        inCard: null,
      },
    ];
    expect(await cutAttempts(page)).toEqual(expected);
    // What a reader sees: the detail, then the answer; never the cut text run into the new one.
    const transcript = await chat.transcript();
    expect(transcript).toContain(`Interrupted: ${RESTART_DETAIL.rerun}`);
    expect(transcript).not.toContain("Half a start");
    expect(await rootTexts(page)).toEqual(["Started over."]);
    expect(transcript).not.toContain("turn ended: interrupted");

    await page.reload();
    await chat.waitForText("Started over.");
    expect(await cutAttempts(page)).toEqual(expected);
    expect(await rootTexts(page)).toEqual(["Started over."]);
    expect(origin).toContain("127.0.0.1");
    await page.close();
  });

  it("a subtask cut in its first model call: its cut text is apart inside its card, and a reload shows it the same", async () => {
    const { page, chat } = await crashAndContinue("subtask-first-call", "R half");
    await chat.waitForText("Restarted and done.", 30_000);
    await chat.waitForIdle();
    const inCard = {
      summary: `Interrupted: ${RESTART_DETAIL.subtaskRerun}`,
      open: false,
      text: "R half",
      inCard: "s1",
    };
    const atRoot = {
      summary: `${RESTART_DETAIL.continues[0]?.toUpperCase()}${RESTART_DETAIL.continues.slice(1)}`,
    };
    const live = await cutAttempts(page);
    expect(live).toEqual([inCard, expect.objectContaining({ ...atRoot, inCard: null })]);
    expect(await rootTexts(page)).toEqual(["Delegating.", "Restarted and done."]);
    expect(await page.locator('[data-card-id="s1"] .card-result').textContent()).toBe("R whole");
    await mkdir(SHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SHOT_DIR, "web-restarted-subtask.png") });

    await page.reload();
    await chat.waitForText("Restarted and done.");
    // The root's restart line is live only (no stored row stands for it); the subtask's attempt is stored.
    expect(await cutAttempts(page)).toEqual([inCard]);
    await page.close();
  });
});
