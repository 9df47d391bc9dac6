import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDone } from "@agentwire-chat/testkit/chat-harness";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { newGates, respondFor } from "./scripted-chat.js";
import { buildApp, serveApp } from "./serve-app.js";

/** The thread list marks threads with activity since the user last looked, and opening one clears it. */
describe("thread list new-activity marks", { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-seen-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    server = await startChatServer({ respond: respondFor(newGates()), workspaceDir: workspace });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("marks a thread whose answer finished elsewhere, clears the mark on open, and remembers it over a reload", async () => {
    const page = await browser.newPage();
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    await chat.send("Say hello");
    await chat.waitForIdle();
    const threadId = (await chat.threadId()) ?? "";
    const item = page.locator(".threads li", { hasText: "Say hello" });
    const mark = item.locator(".thread-new");

    // Seen while open: back on a new chat, the thread is not new.
    await page.goto(`${server.httpUrl}/#/`);
    await item.waitFor();
    expect(await mark.count()).toBe(0);

    // Another client (the CLI, a phone) gets an answer on it: the list marks it, live.
    const other = await server.connect();
    other.command("chat_message", { content: "Say hello again", thread_id: threadId });
    await other.collectUntil(isDone);
    await mark.waitFor();
    expect(await mark.getAttribute("aria-label")).toBe("new activity");

    // Opening the thread clears it, and a reload remembers that it was seen.
    await item.locator("a").click();
    await chat.waitForText("Hello from");
    await page.goto(`${server.httpUrl}/#/`);
    await item.waitFor();
    expect(await mark.count()).toBe(0);
    await page.reload();
    await page.locator("output.conn-open").waitFor();
    await item.waitFor();
    expect(await mark.count()).toBe(0);
    await page.close();
  });
});
