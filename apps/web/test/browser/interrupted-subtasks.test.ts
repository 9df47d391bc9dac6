import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { startChatServer } from "@agentwire-chat/testkit/chat-harness";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { buildApp, serveApp } from "./serve-app.js";

/** Two parallel subtasks that stream, then run until the server stops. */
function respond(request: ProviderRequest): ScriptedStep {
  const first = request.messages[0];
  const task = first?.role === "user" && typeof first.content === "string" ? first.content : "";
  if (task.startsWith("part ")) return { text: [`${task}: `, "working"], hold: "until-aborted" };
  return {
    text: "Splitting.",
    toolCalls: [
      { id: "s1", name: "run_subtask", args: { title: "Part A", instructions: "part A" } },
      { id: "s2", name: "run_subtask", args: { title: "Part B", instructions: "part B" } },
    ],
  };
}

/** A turn the server stopped in the middle of two subtasks, as a reload after the restart shows it. */
describe("an interrupted turn after a reload", { timeout: 90_000 }, () => {
  let browser: Browser;
  let servers: TestServer[] = [];
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-interrupted-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    for (const s of servers) await s.close();
    servers = [];
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  const start = async (dbPath?: string) => {
    const server = await startChatServer(respond, {
      auth: "none",
      allowedOrigins: ["*"],
      ...(dbPath !== undefined && { dbPath }),
    });
    servers.push(server);
    return server;
  };

  it("draws each subtask the server cut short as interrupted, with the text it had streamed", async () => {
    const first = await start(join(workspace, "chat.db"));
    const page = await browser.newPage();
    await serveApp(page, first.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(first.httpUrl);
    await chat.send("Split it");
    await chat.waitForText("part A: working");
    await chat.waitForText("part B: working");
    const threadId = await chat.threadId();
    await first.close();
    servers = servers.filter((s) => s !== first);

    // The server starts again over the same database; the page is loaded anew from it.
    const second = await start(first.dbPath);
    const reloaded = await browser.newPage();
    await serveApp(reloaded, second.httpUrl, dist);
    const again = new ChatPage(reloaded);
    await again.open(second.httpUrl, `#/t/${encodeURIComponent(threadId ?? "")}`);
    await again.waitForCard("Part B");
    const cards = (await again.cards()).filter((c) => c.id === "s1" || c.id === "s2");
    expect(cards.map((c) => [c.label, c.status])).toEqual([
      ["Part A", "interrupted"],
      ["Part B", "interrupted"],
    ]);
    expect(await reloaded.locator('[data-card-id="s1"] .status-icon').getAttribute("aria-label")).toBe(
      "interrupted",
    );
    const transcript = await again.transcript();
    expect(transcript).toContain("part A: working");
    expect(transcript).toContain("part B: working");
    expect(transcript).toContain("turn ended: interrupted");
    expect(transcript).not.toContain("✓");
    await page.close();
    await reloaded.close();
  });
});
