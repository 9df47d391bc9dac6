import { mkdtempSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { newGates, respondFor } from "./scripted-chat.js";
import { buildApp, serveApp, WEB_ROOT } from "./serve-app.js";

/** `SAVE_SCREENSHOTS=1` refreshes docs/img/web-phone.png; otherwise it goes to test-results. */
const SHOT_DIR = process.env.SAVE_SCREENSHOTS
  ? join(WEB_ROOT, "../../docs/img")
  : join(WEB_ROOT, "test-results");

const PHONE = { width: 390, height: 844 };

type Box = { x: number; y: number; width: number; height: number };

/** Where the page's main parts are, as the browser laid them out. */
function layout(page: Page) {
  return page.evaluate(() => {
    const box = (el: Element | null) => {
      const r = el?.getBoundingClientRect();
      return r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
    };
    const header = document.querySelector("header.top");
    return {
      header: box(header),
      headerParts: [...(header?.children ?? [])].map(box),
      composer: box(document.querySelector("form.composer")),
      input: box(document.getElementById("composer-input")),
      scrollHeight: document.documentElement.scrollHeight,
    };
  });
}

/** How many rows a set of boxes forms: boxes that overlap vertically share a row. */
function rowsOf(boxes: Box[]): number {
  const rows: Box[] = [];
  for (const b of [...boxes].sort((p, q) => p.y - q.y)) {
    const row = rows.find((r) => b.y < r.y + r.height && r.y < b.y + b.height);
    if (!row) rows.push(b);
  }
  return rows.length;
}

function inside(box: Box, viewport: { width: number; height: number }): boolean {
  return (
    box.x >= 0 && box.y >= 0 && box.x + box.width <= viewport.width && box.y + box.height <= viewport.height
  );
}

/** The web client on a phone (390×844), in chromium against the real server. */
describe("web client on a phone", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-phone-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    const gates = newGates();
    gates.subtask.open();
    server = await startChatServer({ respond: respondFor(gates), workspaceDir: workspace });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("keeps the header to one row and the composer on screen, with a long thread and many threads", async () => {
    const page = await browser.newPage({ viewport: PHONE });
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);

    // Before anything: one header row (the model picker is there), the composer on screen.
    await page.locator(".picker select").waitFor();
    let seen = await layout(page);
    expect(rowsOf(seen.headerParts as Box[])).toBe(1);
    expect(inside(seen.composer as Box, PHONE)).toBe(true);

    // Three threads, the last one long enough to scroll (the script answers by a thread's first message).
    for (const text of ["Say hello", "Compare A and B"]) {
      await chat.open(server.httpUrl);
      await chat.send(text);
      await chat.waitForIdle();
      await chat.threadId();
    }
    await chat.open(server.httpUrl);
    for (const [i, text] of ["Long answer", "And more"].entries()) {
      await chat.send(text);
      await page.waitForFunction((n) => document.querySelectorAll(".usage").length === n, i + 1);
      await chat.waitForIdle();
    }
    await page.locator(".threads li").nth(2).waitFor();

    seen = await layout(page);
    const header = seen.header as Box;
    const parts = seen.headerParts as Box[];
    expect(rowsOf(parts)).toBe(1);
    // One row: no taller than its tallest part plus the header's padding and border.
    expect(header.height).toBeLessThanOrEqual(Math.max(...parts.map((p) => p.height)) + 16);
    expect(inside(header, PHONE)).toBe(true);
    expect(inside(seen.composer as Box, PHONE)).toBe(true);
    expect(inside(seen.input as Box, PHONE)).toBe(true);
    // The page itself does not scroll: the conversation does, inside it.
    expect(seen.scrollHeight).toBeLessThanOrEqual(PHONE.height);
    const log = page.getByRole("log");
    expect(await log.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);

    // The composer works where it is: typing and sending from it on the phone.
    await chat.send("Once more");
    await page.waitForFunction(() => document.querySelectorAll(".usage").length === 3);
    await chat.waitForIdle();
    expect(inside((await layout(page)).composer as Box, PHONE)).toBe(true);

    // The thread with subtasks, opened from the list: the picture in the README.
    await page.locator(".threads a", { hasText: "Compare A and B" }).click();
    await chat.waitForCard("Prices B");
    await chat.waitForText("A is cheaper.");
    expect(inside((await layout(page)).composer as Box, PHONE)).toBe(true);
    await mkdir(SHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SHOT_DIR, "web-phone.png") });
    await page.close();
  });

  it("tells threads apart in the list: the first message as the title, and when", async () => {
    const page = await browser.newPage({ viewport: PHONE });
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    await page.locator(".threads li").first().waitFor();
    const threads = await page.$$eval(".threads li a", (links) =>
      links.map((a) => ({
        title: a.querySelector(".thread-title")?.textContent ?? "",
        when: a.querySelector("time")?.textContent ?? "",
        datetime: a.querySelector("time")?.getAttribute("datetime") ?? "",
      })),
    );
    // The threads of the test above, newest first: titles from their first messages.
    expect(threads.map((t) => t.title)).toEqual(["Long answer", "Compare A and B", "Say hello"]);
    for (const t of threads) {
      expect(t.when).toMatch(/^(just now|\d+ min ago)$/);
      expect(Number.isNaN(Date.parse(t.datetime))).toBe(false);
    }
    expect(new Set(threads.map((t) => t.datetime)).size).toBe(3);
    await page.close();
  });
});
