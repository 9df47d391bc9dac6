import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startServerWithoutProviders } from "./chat-server.js";
import { buildApp, serveApp } from "./serve-app.js";

/** A server started without any provider key, as a fresh clone runs: the page says what to set. */
describe("web client against a server with no provider", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-web-noprovider-"));
    await buildApp(join(dir, "dist"));
    server = await startServerWithoutProviders();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("says so before the first message, names the variables, and does not let a message fail", async () => {
    expect(await (await server.fetch("/api/providers")).json()).toEqual({ providers: [] });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    // Every frame on the page's first socket, until it closes.
    const frames: string[] = [];
    const socketClosed = new Promise<void>((resolve) => {
      page.once("websocket", (ws) => {
        ws.on("framesent", ({ payload }) => frames.push(`sent ${payload}`));
        ws.on("framereceived", ({ payload }) => frames.push(`received ${payload}`));
        ws.on("close", () => resolve());
      });
    });
    await serveApp(page, server.httpUrl, join(dir, "dist"));
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);

    const notice = page.getByRole("alert").filter({ hasText: "No provider configured" });
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      "No provider configured on the server: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_COMPAT_ENDPOINTS and restart.",
    );
    // The notice is on screen, above the composer, which is disabled.
    const box = await notice.boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= 844).toBe(true);
    const input = page.getByLabel("Message", { exact: true });
    expect(await input.isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Send", exact: true }).isDisabled()).toBe(true);
    // Enter in the box and a click on Send send nothing: no chat_message, so no bad_request back.
    await input.click({ force: true });
    await page.keyboard.type("hello");
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Send", exact: true }).click({ force: true });
    await chat.dropSocket();
    await socketClosed;
    // Only the thread list's live-state subscription went out, and nothing came back.
    expect(frames).toEqual(['sent {"command":"subscribe_threads","data":{}}']);
    expect(await page.locator("article.turn").count()).toBe(0);
    await page.close();
  });
});
