import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { newGates, respondFor, type ScriptGates } from "./scripted-chat.js";
import { buildApp, serveApp } from "./serve-app.js";

/** The thread list of a user coming back: which threads still have work running. */
describe("thread list live state", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;
  let gates: ScriptGates;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-state-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    gates = newGates();
    server = await startChatServer({ respond: respondFor(gates), workspaceDir: workspace });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("marks a thread whose turn still runs, in a page opened meanwhile, and not once it ended", async () => {
    const first = await browser.newPage();
    await serveApp(first, server.httpUrl, dist);
    const writer = new ChatPage(first);
    await writer.open(server.httpUrl);
    await writer.send("Write slowly");
    await writer.waitForText("Drafting the answer.");

    // Another tab, opened while the answer is held mid-stream: the list says which thread is busy.
    const second = await browser.newPage();
    await serveApp(second, server.httpUrl, dist);
    const visitor = new ChatPage(second);
    await visitor.open(server.httpUrl);
    const busy = second.locator(".threads li", { hasText: "Write slowly" });
    await busy.locator(".thread-state.running").waitFor();
    expect(await busy.locator(".thread-state").textContent()).toBe("running");

    gates.writing.open();
    await writer.waitForIdle();
    // The same URL again would only be a hash change: a real reload reads the list anew.
    await second.reload();
    await second.locator("output.conn-open").waitFor();
    await second.locator(".threads li", { hasText: "Write slowly" }).waitFor();
    expect(await second.locator(".threads li .thread-state").count()).toBe(0);
    await first.close();
    await second.close();
  });
});
