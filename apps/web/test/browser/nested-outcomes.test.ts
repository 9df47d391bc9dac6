import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSuspendedTurn } from "../../../../packages/storage/src/contract/suspended-turn.js";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { newGates, respondFor } from "./scripted-chat.js";
import { buildApp, serveApp } from "./serve-app.js";

/** How nested calls show on collapsed cards (a refusal deep inside) and how long a waiting subtask took. */
describe("web client: nested outcomes and waits", { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-nested-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    server = await startChatServer({
      respond: respondFor(newGates()),
      workspaceDir: workspace,
      limits: { MAX_DEPTH: 1 },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  async function openPage(): Promise<{ page: Page; chat: ChatPage }> {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    return { page, chat };
  }

  it("marks a collapsed card that holds a refused call, with the CLI's count, live and after a reload", async () => {
    const { page, chat } = await openPage();
    await chat.send("Nest too deep");
    await chat.waitForText("Finished anyway.");
    await chat.waitForIdle();
    const head = page.locator('[data-depth="0"] > .card-head', { hasText: "Outer" });
    const live = {
      count: await head.locator(".card-count").textContent(),
      problem: await head.locator(".card-problem").textContent(),
    };
    expect(live).toEqual({ count: "2 nested calls", problem: "1 refused inside" });
    // The refused call itself is inside the collapsed card, refused, not done.
    const cards = await chat.cards();
    expect(cards.find((c) => c.label === "Too deep")?.status).toBe("refused");
    expect(await chat.usageLine()).toMatch(/1 tool call · 2 subtasks \(1 refused\)/);

    await page.reload();
    await chat.waitForCard("Outer");
    expect(await head.locator(".card-count").textContent()).toBe(live.count);
    expect(await head.locator(".card-problem").textContent()).toBe(live.problem);
    await page.close();
  });

  it("times a subtask that waited on the user by the wait, live and after a reload", async () => {
    const { page, chat } = await openPage();
    await chat.send("Ask inside");
    await chat.waitForState("waiting_user");
    // The user answers 12 s after the question was stored: moved back in the database, not slept.
    const threadId = (await chat.threadId()) ?? "";
    const row = await server.repos.turns.latest("local", threadId);
    const saved = readSuspendedTurn(row?.suspendedState);
    if (!saved?.suspendedAt) throw new Error("no suspendedAt on the waiting turn");
    await server.repos.turns.update("local", row?.id ?? "", {
      suspendedState: { ...saved, suspendedAt: saved.suspendedAt - 12_000 },
    });
    await chat.answerQuestion("Which shade?", "teal");
    await chat.waitForText("Picked.");
    await chat.waitForIdle();
    const duration = page.locator('[data-depth="0"] > .card-head .card-duration');
    const seconds = (text: string | null) => Number(/^([\d.]+) s$/.exec(text ?? "")?.[1] ?? 0);
    const live = await duration.textContent();
    expect(seconds(live)).toBeGreaterThanOrEqual(12);
    await page.reload();
    await chat.waitForText("Picked.");
    expect(seconds(await duration.textContent())).toBeGreaterThanOrEqual(12);
    await page.close();
  });
});
