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

/** A deep turn that runs out of subtask budget, in chromium against the real server (MAX_TOTAL_SUBTASKS=2). */
describe("web client when the subtask budget runs out", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-budget-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    server = await startChatServer({
      respond: respondFor(newGates()),
      workspaceDir: workspace,
      limits: { MAX_TOTAL_SUBTASKS: 2 },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("shows the refused subtask as refused, the cut-short ones as stopped, and counts what it shows", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    // Part A (subtask 1) starts A1 (subtask 2) and A2 (subtask 3: over the budget, refused).
    await chat.send("Deep work");
    await chat.waitForText("The subtask budget ran out (limit 2).");
    await chat.waitForIdle();
    await chat.toggleCard((await chat.cards()).find((c) => c.depth === 1)?.id ?? "");

    const cards = await chat.cards();
    expect(cards.map(({ label, depth, status }) => ({ label, depth, status }))).toEqual([
      { label: "Part A", depth: 0, status: "stopped" },
      { label: "A1", depth: 1, status: "stopped" },
      { label: "A2", depth: 1, status: "refused" },
    ]);
    // Nothing failed: no card is drawn as an error.
    expect(await page.locator(".card-error, .status-icon.error").count()).toBe(0);
    expect(await page.locator('[data-card-id] [aria-label="refused"]').count()).toBe(1);
    // Three subtask cards, one of them refused: the footer says so, in the right number.
    const usage = await chat.usageLine();
    expect(usage).toMatch(/^tokens not reported · \d+ model calls · 3 subtasks \(1 refused\)$/);
    const live = await chat.transcript();
    expect(live.split("Handing it to a subtask.")).toHaveLength(2);

    // After a reload the cards and counts are the same (the stored status has no budget reason).
    await page.reload();
    await chat.waitForCard("Part A");
    await chat.toggleCard((await chat.cards()).find((c) => c.depth === 1)?.id ?? "");
    const rebuilt = await chat.cards();
    expect(rebuilt.map(({ label, depth, status }) => ({ label, depth, status }))).toEqual(
      cards.map(({ label, depth, status }) => ({ label, depth, status })),
    );
    expect(await chat.usageLine()).toBe(usage);
    // The same text too (the stored final row repeats the last text: it still shows once), but for
    // the budget's reason, which the stored rows do not hold.
    const reason = (text: string) =>
      text.replace(/The (subtask|turn) budget ran out( \(limit 2\))?\./, "The budget ran out.");
    expect(reason(await chat.transcript())).toBe(reason(live));
    await page.close();
  });
});
