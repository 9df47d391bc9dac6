import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestServer } from "../../../../packages/websocket/test/harness.js";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { launchBrowser } from "./launch-browser.js";
import { Gate, respondFor, type ScriptGates } from "./scripted-chat.js";
import { buildApp, serveApp, WEB_ROOT } from "./serve-app.js";

/** `SAVE_SCREENSHOTS=1` refreshes the README's picture in docs/img; otherwise it goes to test-results. */
const SHOT_DIR = process.env.SAVE_SCREENSHOTS
  ? join(WEB_ROOT, "../../docs/img")
  : join(WEB_ROOT, "test-results");

describe("web client in chromium against the real server", { timeout: 60_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let page: Page;
  let chat: ChatPage;
  const gates: ScriptGates = { drop: new Gate(), away: new Gate() };

  beforeAll(async () => {
    await buildApp();
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-"));
    server = await startChatServer({ respond: respondFor(gates), workspaceDir: workspace });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  beforeEach(async () => {
    // A phone-sized screen: the layout must work there too.
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await serveApp(page, server.httpUrl);
    chat = new ChatPage(page);
    await chat.open(server.httpUrl);
  });

  afterEach(async () => {
    await page?.close();
  });

  it("streams a plain answer as markdown, with usage", async () => {
    await chat.send("Say hello");
    await chat.waitForText("Hello from agentwire.");
    await chat.waitForIdle();
    expect(await page.locator(".bubble.assistant strong").textContent()).toBe("agentwire");
    await page.locator(".usage").waitFor();
    expect(await chat.threadId()).toBeTruthy();
  });

  it("nests two parallel subtasks, collapsed below the top level, and rebuilds them after a reload", async () => {
    await chat.send("Compare A and B");
    await chat.waitForText("A is cheaper.");
    await chat.waitForIdle();

    const cards = await chat.cards();
    const containers = cards.filter((c) => c.depth === 0);
    const nested = cards.filter((c) => c.depth === 1);
    expect(containers.map((c) => c.label).sort()).toEqual(["Prices A", "Prices B"]);
    expect(containers.every((c) => c.expanded)).toBe(true);
    expect(nested).toHaveLength(2);
    expect(nested.every((c) => !c.expanded)).toBe(true);
    // The subtasks' own text streams inside their containers.
    await chat.waitForText("Looking up A.");
    await chat.waitForText("Looking up B.");

    await chat.toggleCard(nested[0]!.id);
    const opened = (await chat.cards()).find((c) => c.id === nested[0]!.id);
    expect(opened?.expanded).toBe(true);
    await page.locator(`[data-card-id="${nested[0]!.id}"] .card-body`).waitFor();
    await mkdir(SHOT_DIR, { recursive: true });
    await page.setViewportSize({ width: 1100, height: 800 });
    await page.getByRole("log").evaluate((el) => {
      el.scrollTop = 0;
    });
    await page.screenshot({ path: join(SHOT_DIR, "web-nested-cards.png") });

    // A reload rebuilds the same cards from the stored execution_tree (subtask text is not stored).
    await page.reload();
    await chat.waitForCard("Prices B");
    const shape = (list: typeof cards) =>
      list.map(({ id, depth, label, status }) => ({ id, depth, label, status }));
    const rebuilt = await chat.cards();
    expect(shape(rebuilt)).toEqual(shape(cards));
    expect(rebuilt.filter((c) => c.depth === 1).every((c) => !c.expanded)).toBe(true);
    await chat.waitForText("A is cheaper.");
    expect(await chat.countText("Looking up A.")).toBe(0);
  });

  it("stops a running turn and keeps the partial answer", async () => {
    await chat.send("Work slowly");
    await chat.waitForText("Working on it.");
    await chat.stop();
    await chat.waitForText("Stopped.");
    await chat.waitForIdle();
    expect(await chat.countText("Working on it.")).toBe(1);
  });

  it("answers the agent's question in the page", async () => {
    await chat.send("Ask me");
    await chat.waitForState("waiting_on_user");
    await chat.answerQuestion("Which colour?", "blue");
    await chat.waitForText("You chose blue.");
    await chat.waitForIdle();
  });

  it("allows a gated tool from the approval prompt", async () => {
    await chat.send("Write the file");
    await chat.decide("Allow");
    await chat.waitForText("Saved note.txt.");
    await chat.waitForIdle();
    expect(readFileSync(join(workspace, "note.txt"), "utf8")).toBe("hi");
  });

  it("catches up after the socket is killed mid-turn, without duplicated text", async () => {
    await chat.send("Drop test");
    await chat.waitForText("Part one.");
    await chat.dropSocket();
    await page.locator("output.conn-reconnecting").waitFor();
    // The turn goes on while the page is disconnected.
    gates.drop.open();
    await chat.waitForText("Part two.");
    await chat.waitForIdle();
    expect(await chat.countText("Part one.")).toBe(1);
    expect(await chat.countText("Part two.")).toBe(1);
    expect(await chat.cards()).toHaveLength(1);
  });

  it("shows what happened in a thread while the page was on another one", async () => {
    await chat.send("Away test");
    const threadId = await chat.threadId();
    await chat.waitForText("Part one.");
    await page.evaluate(() => {
      location.hash = "#/";
    });
    await page.getByText("Start a conversation.").waitFor();
    gates.away.open();
    await page.evaluate((id) => {
      location.hash = `#/t/${encodeURIComponent(id)}`;
    }, threadId ?? "");
    await chat.waitForText("Part two.");
    await chat.waitForIdle();
    expect(await chat.countText("Part one.")).toBe(1);
    expect(await chat.countText("Part two.")).toBe(1);
  });
});

describe("web client with AUTH_MODE=token", { timeout: 60_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;

  beforeAll(async () => {
    await buildApp();
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-"));
    const respond = respondFor({ drop: new Gate(), away: new Gate() });
    server = await startChatServer({ respond, auth: "token", workspaceDir: workspace });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("asks for the token once, then chats over the bearer subprotocol", async () => {
    const token = await server.createToken("alice");
    const page = await browser.newPage();
    await serveApp(page, server.httpUrl);
    await page.goto(`${server.httpUrl}/#/`);
    await page.getByLabel("Token").fill(token);
    await page.keyboard.press("Enter");
    const chat = new ChatPage(page);
    await page.locator("output.conn-open").waitFor();
    await chat.send("Say hello");
    await chat.waitForText("Hello from agentwire.");
    // Remembered: a reload connects without asking again.
    await page.reload();
    await page.locator("output.conn-open").waitFor();
    expect(await page.getByLabel("Token").count()).toBe(0);
    await page.close();
  });
});
