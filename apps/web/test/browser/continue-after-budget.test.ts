import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { newGates, respondFor } from "./scripted-chat.js";
import { buildApp, serveApp } from "./serve-app.js";

/** A turn the model-call budget stops (MAX_TOTAL_LLM_CALLS=1), continued with the Continue button, in chromium. */
describe("web client: Continue after a budget", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-continue-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    server = await startChatServer({
      respond: respondFor(newGates()),
      workspaceDir: workspace,
      limits: { MAX_TOTAL_LLM_CALLS: 1 },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("offers Continue on the turn the budget ended; the same turn goes on to its answer, and a reload shows it once", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    await chat.send("Price in steps");
    await chat.waitForText("The model call budget ran out (limit 1).");
    await chat.waitForIdle();
    const proceed = page.getByRole("button", { name: "Continue", exact: true });
    expect(await proceed.count()).toBe(1);

    await proceed.click();
    await chat.waitForText("A costs 3, after the lookup.");
    await chat.waitForIdle();
    // One turn: the notice and the button went with the limit, the answer follows the first part.
    expect(await page.locator("article.turn").count()).toBe(1);
    expect(await proceed.count()).toBe(0);
    expect(await chat.countText("budget ran out")).toBe(0);
    expect(await chat.countText("Looking up A.")).toBe(1);
    expect(await chat.usageLine()).toMatch(/^tokens not reported · 2 model calls/);
    const live = await chat.transcript();

    await page.reload();
    await chat.waitForText("A costs 3, after the lookup.");
    expect(await page.locator("article.turn").count()).toBe(1);
    expect(await chat.countText("A costs 3, after the lookup.")).toBe(1);
    expect(await proceed.count()).toBe(0);
    expect(await chat.transcript()).toBe(live);
    await page.close();
  });
});
