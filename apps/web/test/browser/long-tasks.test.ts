import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextSettings } from "@agentwire-chat/agents";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { longTaskResponder } from "./long-task-script.js";
import { Gate } from "./scripted-chat.js";
import { buildApp, serveApp, WEB_ROOT } from "./serve-app.js";

const PHONE = { width: 390, height: 844 };
/** Pictures of the new parts, for a look by eye (not compared). */
const SHOTS = join(WEB_ROOT, "test-results");

/** Long conversations and long tasks (issue 15) in chromium against the real server. */
describe("web client: progress, scratchpad, plans, live thread states", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;
  const gates = { writing: new Gate() };

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-long-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    server = await startChatServer({
      respond: longTaskResponder(gates),
      workspaceDir: workspace,
      context: ContextSettings.parse({ CONTEXT_MAX_TOKENS: 100_000 }),
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  async function openPage(viewport?: {
    width: number;
    height: number;
  }): Promise<{ page: Page; chat: ChatPage }> {
    const page = await browser.newPage(viewport ? { viewport } : {});
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    return { page, chat };
  }

  it("shows send_update as a progress line between the texts, live and after a reload", async () => {
    const { page, chat } = await openPage();
    await chat.send("Report progress");
    await chat.waitForText("All ten files are read.");
    await chat.waitForIdle();
    const line = page.locator(".progress-line");
    expect(await line.locator(".progress-text").textContent()).toBe("Half way there: 5 of 10 files read.");
    const inOrder = async () => {
      const text = await chat.transcript();
      const at = (s: string) => text.indexOf(s);
      return [at("Starting the long job."), at("Half way there"), at("All ten files are read.")];
    };
    const live = await inOrder();
    expect(live.every((i, n) => i >= 0 && (n === 0 || i > (live[n - 1] ?? 0)))).toBe(true);
    // No tool card for it: the line is the call.
    expect(await page.locator(".card .card-name", { hasText: "send_update" }).count()).toBe(0);
    // Each model call reported its context: the header shows the latest, against the budget.
    expect(await page.locator(".thread-bar .context-usage").textContent()).toMatch(
      /^context [\d.]+k? \/ 100k tokens$/,
    );

    await page.reload();
    await chat.waitForText("All ten files are read.");
    expect(await page.locator(".progress-line .progress-text").textContent()).toBe(
      "Half way there: 5 of 10 files read.",
    );
    const reloaded = await inOrder();
    expect(reloaded.every((i, n) => i >= 0 && (n === 0 || i > (reloaded[n - 1] ?? 0)))).toBe(true);
    await page.close();
  });

  it("lists the scratchpad in a drawer on a phone, live and after a reload", async () => {
    const { page, chat } = await openPage(PHONE);
    const toggle = page.getByRole("button", { name: /^Scratchpad/ });
    await toggle.click();
    const panel = page.getByRole("complementary", { name: "Scratchpad" });
    await panel.waitFor();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");

    await chat.send("Take notes");
    await chat.waitForText("Noted.");
    await chat.waitForIdle();
    const read = async () => ({
      active: await panel.locator(".sp-group-active .sp-item .sp-title").allTextContents(),
      closed: await panel.locator(".sp-group-closed .sp-item .sp-title").allTextContents(),
      kinds: await panel.locator(".sp-group-active .sp-kind").allTextContents(),
    });
    // Patched live: three added, then the task resolved.
    await panel.locator(".sp-group-closed .sp-item").waitFor();
    expect(await read()).toEqual({
      active: ["Which year is meant?", "Budget is 5k"],
      closed: ["Read the report"],
      kinds: ["question", "note"],
    });
    expect(await panel.locator('.sp-item[data-status="resolved"] .sp-details').textContent()).toBe(
      "Chapters 1 to 3",
    );
    expect(await toggle.textContent()).toBe("Scratchpad (2)");
    await page.screenshot({ path: join(SHOTS, "web-scratchpad-phone.png") });

    // On a phone the panel is a drawer over the chat, inside the screen; the page does not scroll.
    const box = await panel.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= PHONE.width && box.height <= PHONE.height).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(
      PHONE.height,
    );
    // Escape inside the drawer closes it (the drawer covers the toggle on a phone).
    await panel.getByRole("button", { name: "Close scratchpad" }).focus();
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");

    // After a reload the items come from GET /api/threads/:id/scratchpad.
    await page.reload();
    await page.locator("output.conn-open").waitFor();
    await page.getByRole("button", { name: "Scratchpad (2)" }).click();
    await panel.locator(".sp-group-closed .sp-item").waitFor();
    expect(await read()).toEqual({
      active: ["Which year is meant?", "Budget is 5k"],
      closed: ["Read the report"],
      kinds: ["question", "note"],
    });
    await page.close();
  });

  it("shows a draft plan with Approve and Revise; Approve runs its steps in a new turn", async () => {
    const { page, chat } = await openPage();
    await chat.send("Plan the comparison");
    await chat.waitForText("The plan is ready for your review.");
    await chat.waitForIdle();
    const draft = page.locator(".plan").first();
    expect(await draft.locator(".plan-goal").textContent()).toBe("Compare the two shops");
    expect(await draft.locator(".plan-stage-name").textContent()).toBe("Gather prices");
    expect(await draft.locator(".plan-stage .badge").textContent()).toBe("in parallel");
    expect(await draft.locator('.plan-step[data-status="planned"] .card-name').allTextContents()).toEqual([
      "Price of A",
      "Price of B",
    ]);

    // Revise opens a feedback box; Cancel goes back to the two buttons.
    await draft.getByRole("button", { name: "Revise" }).click();
    await draft.getByLabel("What should change?").waitFor();
    expect(await draft.getByRole("button", { name: "Send feedback" }).isDisabled()).toBe(true);
    await draft.getByRole("button", { name: "Cancel" }).click();

    await draft.getByRole("button", { name: "Approve" }).click();
    await draft.locator(".plan-decided").waitFor();
    expect(await draft.getByRole("button", { name: "Approve" }).count()).toBe(0);

    // The run: a new turn whose plan card fills its step cards as the subtasks end.
    await chat.waitForText("Both prices are in: A is cheaper.");
    await chat.waitForIdle();
    const run = page.locator(".plan").nth(1);
    expect(await run.locator('.plan-step[data-status="complete"] .card-name').allTextContents()).toEqual([
      "Price of A",
      "Price of B",
    ]);
    await page.screenshot({ path: join(SHOTS, "web-plan.png"), fullPage: true });

    // After a reload: the draft without buttons, the run with its finished steps.
    await page.reload();
    await chat.waitForText("Both prices are in: A is cheaper.");
    await page.locator(".plan").nth(1).waitFor();
    expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(0);
    expect(
      await page
        .locator(".plan")
        .nth(1)
        .locator('.plan-step[data-status="complete"] .card-name')
        .allTextContents(),
    ).toEqual(["Price of A", "Price of B"]);
    expect(await page.locator(".plan").first().locator(".plan-goal").textContent()).toBe(
      "Compare the two shops",
    );
    await page.close();
  });

  it("updates another tab's thread list live: running, waiting for you, idle", async () => {
    const { page: writerPage, chat: writer } = await openPage();
    const { page: watcher } = await openPage();
    await watcher.locator("nav.threads").waitFor();

    await writer.send("Write slowly");
    await writer.waitForText("Drafting the answer.");
    // The watcher never reloads: the new thread and its badge come from thread_state frames.
    const busy = watcher.locator(".threads li", { hasText: "Write slowly" });
    await busy.locator(".thread-state.running").waitFor();
    gates.writing.open();
    await writer.waitForIdle();
    await busy.locator(".thread-state").waitFor({ state: "detached" });

    await writer.open(server.httpUrl);
    await writer.send("Ask me");
    await writer.waitForState("waiting_user");
    const asking = watcher.locator(".threads li", { hasText: "Ask me" });
    await asking.locator(".thread-state.waiting").waitFor();
    expect(await asking.locator(".thread-question").textContent()).toBe("Which colour?");
    await writer.answerQuestion("Which colour?", "blue");
    await writer.waitForText("You chose blue.");
    await asking.locator(".thread-state").waitFor({ state: "detached" });
    expect(await asking.locator(".thread-question").count()).toBe(0);
    await writerPage.close();
    await watcher.close();
  });
});
