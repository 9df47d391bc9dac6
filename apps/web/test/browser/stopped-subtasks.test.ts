import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { buildApp, serveApp } from "./serve-app.js";

/** Two parallel subtasks that stream, then work until the user stops the turn. */
function respond(request: ProviderRequest): ScriptedStep {
  const first = request.messages[0];
  const task = first?.role === "user" && typeof first.content === "string" ? first.content : "";
  if (task.startsWith("part ")) return { text: [`${task}: `, "halfway there"], hold: "until-aborted" };
  return {
    text: "Splitting.",
    toolCalls: [
      { id: "s1", name: "run_subtask", args: { title: "Part A", instructions: "part A" } },
      { id: "s2", name: "run_subtask", args: { title: "Part B", instructions: "part B" } },
    ],
  };
}

/** Stop in the middle of two subtasks, in chromium against the real server. */
describe("a turn stopped while its subtasks stream", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-stopped-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    server = await startChatServer({ respond, workspaceDir: workspace });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("keeps the text each subtask streamed, as the footer says, live and after a reload", async () => {
    const page = await browser.newPage();
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    await chat.send("Split it");
    await chat.waitForText("part A: halfway there");
    await chat.waitForText("part B: halfway there");
    await chat.stop();
    await chat.waitForIdle();
    await chat.waitForText("Stopped. The answer so far is kept.");

    const check = async (view: ChatPage) => {
      const cards = (await view.cards()).filter((c) => c.id === "s1" || c.id === "s2");
      expect(cards.map((c) => [c.label, c.status])).toEqual([
        ["Part A", "stopped"],
        ["Part B", "stopped"],
      ]);
      // Each card still holds what its subtask wrote, once.
      for (const [id, text] of [
        ["s1", "part A: halfway there"],
        ["s2", "part B: halfway there"],
      ] as const) {
        expect(await view.page.locator(`[data-card-id="${id}"] .card-body`).innerText()).toContain(text);
        expect(await view.countText(text)).toBe(1);
      }
    };
    await check(chat);

    // A reload draws the stored turn the same way.
    await page.reload();
    await page.locator("output.conn-open").waitFor();
    await chat.waitForCard("Part B");
    await check(chat);
    await page.close();
  });
});
