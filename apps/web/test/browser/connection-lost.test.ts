import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killHard, restartServer, spawnCrashServer } from "@agentwire-chat/testkit/crash-server";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import { startTcpProxy, type TcpProxy } from "@agentwire-chat/testkit/tcp-proxy";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../server/src/start-server.js";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { newGates, respondFor } from "./scripted-chat.js";
import { buildApp, serveApp } from "./serve-app.js";

/** The controller's handle on the page (main.tsx), as far as this test reads it. */
type AgentwireHandle = { state: { link: { status: string; retryAt: number } } };

/** The banner that says the connection is lost. */
const lost = (page: Page) => page.getByRole("status").filter({ hasText: "Connection lost." });

/**
 * The page reaches the real server through a TCP proxy that can stop answering, as a server that
 * is down does: every socket and HTTP connection is cut and new ones are refused until it is back.
 */
describe("the web page while the server is unreachable", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let proxy: TcpProxy;
  let workspace: string;
  let origin: string;
  const gates = newGates();

  beforeAll(async () => {
    await buildApp();
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-lost-"));
    server = await startChatServer({ respond: respondFor(gates), workspaceDir: workspace });
    proxy = await startTcpProxy(server.wsUrl);
    origin = new URL(proxy.url).origin.replace("ws:", "http:");
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  /** A page at the proxy's origin, with every HTTP status of 400 and up it met. */
  async function openPage(): Promise<{ page: Page; chat: ChatPage; failed: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
    const failed: string[] = [];
    page.on("response", (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    await serveApp(page, origin);
    const chat = new ChatPage(page);
    await chat.open(origin);
    return { page, chat, failed };
  }

  it("says the connection is lost and what happens next, disables Stop, then resumes the turn once it is back", async () => {
    const { page, chat, failed } = await openPage();
    await chat.send("Drop test");
    await chat.waitForText("Part one.");
    const stop = page.getByRole("button", { name: "Stop", exact: true });
    expect(await stop.isEnabled()).toBe(true);

    proxy.refuse(true);
    proxy.cut();
    const banner = lost(page);
    await banner.waitFor();
    await page.waitForFunction(
      () => /Reconnecting in \d+ s\./.test(document.querySelector(".connection-lost")?.textContent ?? ""),
      undefined,
      { timeout: 15_000, polling: 50 },
    );
    // The page cannot tell a server that is down from a network that is: it says what it does
    // (reconnect) and when the turn goes on (once the server is back), not that it runs meanwhile.
    expect(await banner.textContent()).toContain(
      "The page reconnects by itself; once the server is back, the turn goes on here and Stop works again.",
    );
    expect(await banner.textContent()).not.toContain("keeps running");
    // No live-looking "Writing…" with a spinner, and no Stop that cannot reach the server.
    expect(await page.locator("output.agent-status").count()).toBe(0);
    expect(await page.locator(".spinner").count()).toBe(0);
    expect(await stop.isDisabled()).toBe(true);
    expect(await page.locator("output.conn-reconnecting").count()).toBe(1);

    // The turn goes on on the server while the page cannot reach it.
    gates.drop.open();
    proxy.refuse(false);
    await page.locator("output.conn-open").waitFor({ timeout: 20_000 });
    await banner.waitFor({ state: "detached" });
    await chat.waitForText("Part two.");
    await chat.waitForIdle();
    expect(await chat.countText("Part one.")).toBe(1);
    expect(await chat.countText("Part two.")).toBe(1);
    // The favicon is served, and nothing else the page asked for failed, the outage aside.
    expect(failed).toEqual([]);
    await page.close();
  });

  it("Retry now reconnects at once instead of waiting out the backoff", async () => {
    const { page, chat } = await openPage();
    proxy.refuse(true);
    proxy.cut();
    const retry = page.getByRole("button", { name: "Retry now" });
    await retry.waitFor();
    // Failed attempts until the next one is over 4 s away: long enough to tell a retry from the timer.
    const retryAt = await page.waitForFunction(
      () => {
        const link = (window as unknown as { agentwire: AgentwireHandle }).agentwire.state.link;
        return link.status === "offline" && link.retryAt - Date.now() > 4000 && link.retryAt;
      },
      undefined,
      { timeout: 40_000, polling: 50 },
    );
    const due = (await retryAt.jsonValue()) as number;
    proxy.refuse(false);
    await retry.click();
    await page.locator("output.conn-open").waitFor();
    // Open before the backoff's attempt was due: the button did it.
    expect(await page.evaluate(() => Date.now())).toBeLessThan(due);
    await lost(page).waitFor({ state: "detached" });
    await chat.send("Say hello");
    await chat.waitForText("Hello from agentwire.");
    await page.close();
  });
});

/**
 * The real server as a process, killed with -9 mid-turn and started again over its database; the
 * page stays on one origin, a TCP proxy that follows the server to its new port.
 */
describe("the web page while its server is killed and restarted mid-turn", { timeout: 120_000 }, () => {
  let browser: Browser;
  let child: ChildProcess | undefined;
  let fresh: RunningServer | undefined;
  let proxy: TcpProxy | undefined;
  let dir: string;

  beforeAll(async () => {
    await buildApp();
    dir = mkdtempSync(join(tmpdir(), "agentwire-web-restart-"));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await proxy?.close();
    await fresh?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("shows the lost connection while the server is gone, then the turn's stored end, and chats on", async () => {
    const dbPath = join(dir, "agentwire.db");
    const server = spawnCrashServer(dbPath);
    child = server.proc;
    proxy = await startTcpProxy((await server.url).replace("http", "ws"));
    const origin = new URL(proxy.url).origin.replace("ws:", "http:");
    const page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
    await serveApp(page, origin);
    const chat = new ChatPage(page);
    await chat.open(origin);
    await chat.send("crash while you answer");
    await chat.waitForText("Half an answer", 30_000);

    expect(await killHard(server.proc)).toBe("SIGKILL");
    const banner = lost(page);
    await banner.waitFor();
    expect(await banner.textContent()).toContain("once the server is back, the turn goes on here");
    expect(await page.locator(".spinner").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Stop", exact: true }).isDisabled()).toBe(true);

    fresh = await restartServer(dbPath, [{ text: "Back again." }]);
    proxy.retarget(fresh.url.replace("http", "ws"));
    // The turn the kill cut ends as the restarted server stored it; the page did not need a reload.
    await chat.waitForText("turn ended: interrupted", 30_000);
    await banner.waitFor({ state: "detached" });
    await chat.waitForIdle();
    expect(await chat.countText("Half an answer")).toBe(1);
    await chat.send("are you back?");
    await chat.waitForText("Back again.");
    await page.close();
  });
});
