import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDone } from "@agentwire-chat/testkit/chat-harness";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser, Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { buildApp, serveApp } from "./serve-app.js";

const PHONE = { width: 390, height: 844 };

type Box = { x: number; y: number; width: number; height: number };

const boxOf = async (locator: Locator): Promise<Box> => {
  const box = await locator.boundingBox();
  if (!box) throw new Error("not laid out");
  return box;
};
/** Two boxes share a row when they overlap vertically. */
const sameRow = (a: Box, b: Box) => a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (b: Box) =>
  b.x >= 0 && b.y >= 0 && b.x + b.width <= PHONE.width && b.y + b.height <= PHONE.height;

/** The thread bar and the thread list on a phone (390×844), in chromium against the real server. */
describe("the thread bar and the thread list on a phone", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-phone-bar-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    server = await startChatServer({
      respond: () => ({
        text: "Hello from agentwire.",
        usage: { inputTokens: 123_456, outputTokens: 7_890 },
      }),
      workspaceDir: workspace,
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("shows the thread's whole cost beside the panel toggles, clipped nowhere", async () => {
    const page = await browser.newPage({ viewport: PHONE });
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    await chat.send("Say hello");
    await chat.waitForIdle();
    const cost = page.locator(".thread-bar .thread-cost");
    await cost.waitFor();
    expect(await cost.textContent()).toBe("Thread: cost unknown · 123,456 in · 7,890 out · 1 model call");
    // Nothing of it is cut off: the text fits its box (no ellipsis), and the box the screen.
    const clipped = await cost.evaluate(
      (el) => el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight,
    );
    expect(clipped).toBe(false);
    expect(inside(await boxOf(cost))).toBe(true);
    for (const name of ["Memory", "Scratchpad"]) {
      expect(inside(await boxOf(page.getByRole("button", { name, exact: true })))).toBe(true);
    }
    await page.close();
  });

  it("puts a thread's new-activity mark on its title's row", async () => {
    const page = await browser.newPage({ viewport: PHONE });
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    await chat.send("Hi there");
    await chat.waitForIdle();
    const threadId = (await chat.threadId()) ?? "";
    await page.goto(`${server.httpUrl}/#/`);
    // Another client's turn on the thread: the list marks it as new.
    const other = await server.connect();
    other.command("chat_message", { content: "Hi again", thread_id: threadId });
    await other.collectUntil(isDone);
    const item = page.locator(".threads li", { hasText: "Hi there" });
    const mark = item.locator(".thread-new");
    await mark.waitFor();
    const [dot, title] = [await boxOf(mark), await boxOf(item.locator(".thread-title"))];
    expect(sameRow(dot, title)).toBe(true);
    expect(dot.x + dot.width).toBeLessThanOrEqual(title.x);
    await page.close();
  });
});
