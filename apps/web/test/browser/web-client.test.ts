import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { newGates, respondFor } from "./scripted-chat.js";
import { buildApp, serveApp, WEB_ROOT } from "./serve-app.js";
import { offeredSubprotocols, recordSubprotocols } from "./subprotocol-recorder.js";

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
  const gates = newGates();

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
    await recordSubprotocols(page);
    await serveApp(page, server.httpUrl);
    chat = new ChatPage(page);
    await chat.open(server.httpUrl);
  });

  afterEach(async () => {
    await page?.close();
  });

  it("streams a plain answer as markdown, with usage, over the nested subprotocol", async () => {
    await chat.send("Say hello");
    await chat.waitForText("Hello from agentwire.");
    await chat.waitForIdle();
    expect(await page.locator(".bubble.assistant strong").textContent()).toBe("agentwire");
    await page.locator(".usage").waitFor();
    // The scripted model has no price: tokens as reported, one call, in the singular.
    expect(await chat.usageLine()).toBe("1,200 in · 7 out · 1 model call · cost unknown");
    expect(await chat.threadId()).toBeTruthy();
    expect(await offeredSubprotocols(page)).toEqual([["agentwire.v1+nested", "agentwire.v1"]]);
  });

  it("says Writing while the answer streams, not Thinking", async () => {
    await chat.send("Write slowly");
    await chat.waitForText("Drafting the answer.");
    await chat.waitForState("writing");
    expect(await page.locator("output.agent-status").textContent()).toBe("Writing…");
    gates.writing.open();
    await chat.waitForIdle();
    expect(await page.locator("output.agent-status").textContent()).toBe("");
  });

  it("nests two parallel subtasks, collapsed below the top level, and rebuilds them after a reload", async () => {
    await chat.send("Compare A and B");
    // Subtask A is held after its first text: it streams inside its container while it runs...
    const cardA = page.locator(".card-container", { hasText: "Prices A" });
    await cardA.getByText("Looking up A.").waitFor();
    // ...and B, which ended, keeps its result, not its streamed text as well.
    const cardB = page.locator('.card-container[data-status="complete"]', { hasText: "Prices B" });
    await cardB.waitFor();
    expect(await chat.countText("Looking up B.")).toBe(0);
    expect(await chat.countText("B costs 4.")).toBe(1);
    gates.subtask.open();
    await chat.waitForText("A is cheaper.");
    await chat.waitForIdle();
    // Each subtask's text appears once: as its result.
    expect(await chat.countText("Looking up A.")).toBe(0);
    expect(await chat.countText("A costs 3.")).toBe(1);
    expect(await chat.usageLine()).toBe("tokens not reported · 6 model calls · 2 tool calls · 2 subtasks");
    const live = await chat.transcript();

    const cards = await chat.cards();
    const containers = cards.filter((c) => c.depth === 0);
    const nested = cards.filter((c) => c.depth === 1);
    expect(containers.map((c) => c.label).sort()).toEqual(["Prices A", "Prices B"]);
    expect(containers.every((c) => c.expanded)).toBe(true);
    expect(nested).toHaveLength(2);
    expect(nested.every((c) => !c.expanded)).toBe(true);

    // A reload rebuilds the turn from the stored execution_tree: it reads exactly as it did live.
    await page.reload();
    await chat.waitForCard("Prices B");
    await chat.waitForText("A is cheaper.");
    expect(await chat.transcript()).toBe(live);
    const shape = (list: typeof cards) =>
      list.map(({ id, depth, label, status, expanded }) => ({ id, depth, label, status, expanded }));
    expect(shape(await chat.cards())).toEqual(shape(cards));

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
  });

  it("stops a running turn and keeps the partial answer, with the usage the server reported", async () => {
    await chat.send("Work slowly");
    await chat.waitForText("Working on it.");
    await chat.stop();
    await chat.waitForText("Stopped.");
    await chat.waitForIdle();
    expect(await chat.countText("Working on it.")).toBe(1);
    // The stopped stream reported no tokens: the line says so, not "0 in · 0 out".
    expect(await chat.usageLine()).toBe("tokens not reported · 1 model call");
  });

  it("answers the agent's question in its box, which stays above the answer that follows", async () => {
    await chat.send("Ask me");
    await chat.waitForState("waiting_user");
    await chat.answerQuestion("Which colour?", "blue");
    await chat.waitForText("You chose blue.");
    await chat.waitForIdle();
    const text = await chat.transcript();
    expect(text.indexOf("You answered: blue")).toBeGreaterThan(-1);
    expect(text.indexOf("You answered: blue")).toBeLessThan(text.indexOf("You chose blue."));
  });

  it("answers the question from the message box, where the focus stayed, and a reload reads the same", async () => {
    await chat.send("Ask me");
    await chat.waitForState("waiting_user");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("composer-input");
    expect(await page.getByLabel("Message", { exact: true }).getAttribute("placeholder")).toBe(
      "Your answer to: Which colour?",
    );
    await page.keyboard.type("green");
    await page.keyboard.press("Enter");
    await chat.waitForText("You chose green.");
    await chat.waitForIdle();
    const live = await chat.transcript();
    expect(live.indexOf("You answered: green")).toBeGreaterThan(-1);
    expect(live.indexOf("You answered: green")).toBeLessThan(live.indexOf("You chose green."));
    await page.reload();
    await chat.waitForText("You chose green.");
    expect(await chat.transcript()).toBe(live);
  });

  it("answers a subtask's question from the message box; it shows inside the subtask's card", async () => {
    await chat.send("Ask inside");
    await chat.waitForState("waiting_user");
    const card = page.locator(".card-container", { hasText: "Pick a shade" });
    await card.getByLabel("Which shade?").waitFor();
    await page.keyboard.type("teal");
    await page.keyboard.press("Enter");
    await chat.waitForText("Picked.");
    await chat.waitForIdle();
    expect(await card.locator(".question-answer").textContent()).toBe("You answered: teal");
    expect(await card.locator(".card-result").textContent()).toBe("Shade teal.");
    const live = await chat.transcript();
    await page.reload();
    await chat.waitForText("Picked.");
    expect(await chat.transcript()).toBe(live);
  });

  it("allows a gated tool from the approval prompt, which stays where it came up", async () => {
    await chat.send("Write the file");
    await chat.decide("Allow");
    await chat.waitForText("Saved note.txt.");
    await chat.waitForIdle();
    expect(readFileSync(join(workspace, "note.txt"), "utf8")).toBe("hi");
    const text = await chat.transcript();
    expect(text.indexOf("You chose: Allow")).toBeGreaterThan(-1);
    expect(text.indexOf("You chose: Allow")).toBeLessThan(text.indexOf("Saved note.txt."));
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
    const respond = respondFor(newGates());
    server = await startChatServer({ respond, auth: "token", workspaceDir: workspace });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("asks for the token once, saying how to make one, then chats over the bearer subprotocol", async () => {
    const token = await server.createToken("alice");
    const page = await browser.newPage();
    await recordSubprotocols(page);
    await serveApp(page, server.httpUrl);
    await page.goto(`${server.httpUrl}/#/`);
    const prompt = (await page.locator(".token-form").textContent()) ?? "";
    expect(prompt).toContain("docker exec <container> agentwire token create --user NAME");
    expect(prompt).toContain("pnpm agentwire token create --user NAME");
    await page.getByLabel("Token").fill(token);
    await page.keyboard.press("Enter");
    const chat = new ChatPage(page);
    await page.locator("output.conn-open").waitFor();
    await chat.send("Say hello");
    await chat.waitForText("Hello from agentwire.");
    const offered = await offeredSubprotocols(page);
    expect(offered.at(-1)).toEqual(["agentwire.v1+nested", "agentwire.v1", `agentwire.bearer.${token}`]);
    // Remembered: a reload connects without asking again.
    await page.reload();
    await page.locator("output.conn-open").waitFor();
    expect(await page.getByLabel("Token").count()).toBe(0);
    await page.close();
  });
});
