import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { ThreadUsage } from "@agentwire-chat/protocol";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { buildApp, serveApp } from "./serve-app.js";

/** Notes two scratchpad items, then answers once their result is back. */
function respond(request: ProviderRequest): ScriptedStep {
  if (!request.messages.some((m) => m.role === "tool")) {
    return {
      toolCalls: [
        {
          id: "sp_1",
          name: "scratchpad_update",
          args: {
            ops: [
              { op: "add", kind: "task", title: "Book the train" },
              { op: "add", kind: "question", title: "Which hotel?" },
            ],
          },
        },
      ],
      usage: { inputTokens: 1000, outputTokens: 50 },
    };
  }
  return { text: "Noted.", usage: { inputTokens: 1200, outputTokens: 8 } };
}

/** The page shows what a thread cost and lets the user clear the scratchpad and the agent's memory. */
describe("thread cost, clearing the scratchpad and memory", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-clear-"));
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

  async function openPage(): Promise<{ page: Page; chat: ChatPage }> {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await serveApp(page, server.httpUrl, dist);
    // Confirming a clear is part of the flow: the test says yes like a user would.
    page.on("dialog", (dialog) => void dialog.accept());
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    return { page, chat };
  }

  it("shows the thread's cost from the ledger and clears its scratchpad", async () => {
    const { page, chat } = await openPage();
    await chat.send("Plan the trip");
    await chat.waitForText("Noted.");
    await chat.waitForIdle();
    const threadId = (await chat.threadId()) as string;

    const usage = ThreadUsage.parse(await (await server.fetch(`/api/threads/${threadId}/usage`)).json());
    expect(usage.turns.map((t) => [t.input_tokens, t.output_tokens, t.llm_calls])).toEqual([[2200, 58, 2]]);
    const cost = page.locator(".thread-bar .thread-cost");
    await cost.waitFor();
    // The scripted model has no price: the cost is unknown, never shown as $0.
    expect(await cost.textContent()).toBe("Thread: cost unknown · 2,200 in · 58 out · 2 model calls");

    await page.getByRole("button", { name: "Scratchpad (2)" }).click();
    const panel = page.getByRole("complementary", { name: "Scratchpad" });
    await panel.getByText("Which hotel?").waitFor();
    await panel.getByRole("button", { name: "Clear scratchpad" }).click();
    await panel.getByText("The agent has noted nothing in this thread yet.").waitFor();
    expect(await page.getByRole("button", { name: /^Scratchpad/ }).textContent()).toBe("Scratchpad");
    expect(await (await server.fetch(`/api/threads/${threadId}/scratchpad`)).json()).toEqual({ items: [] });

    // A reload reads the thread anew: still empty, and the cost is still there.
    await page.reload();
    await page.locator("output.conn-open").waitFor();
    await page.getByRole("button", { name: "Scratchpad", exact: true }).click();
    await page
      .getByRole("complementary", { name: "Scratchpad" })
      .getByText("The agent has noted nothing in this thread yet.")
      .waitFor();
    await page.locator(".thread-bar .thread-cost", { hasText: "2 model calls" }).waitFor();
    await page.close();
  });

  it("lists the agent's memory and forgets one key, then everything", async () => {
    await server.repos.memories.set("local", "city", "Lyon");
    await server.repos.memories.set("local", "pet", "a cat named Io");
    const { page } = await openPage();

    await page.getByRole("button", { name: "Memory" }).click();
    const panel = page.getByRole("complementary", { name: "Memory" });
    await panel.getByText("a cat named Io").waitFor();
    expect(await panel.locator(".memory-key").allTextContents()).toEqual(["city", "pet"]);

    await panel.getByRole("button", { name: "Forget city" }).click();
    await panel.locator('.memory-entry[data-key="city"]').waitFor({ state: "detached" });
    expect(await server.repos.memories.keys("local")).toEqual(["pet"]);

    await panel.getByRole("button", { name: "Forget all" }).click();
    await panel.getByText("The agent remembers nothing about you.").waitFor();
    expect(await server.repos.memories.count("local")).toBe(0);
    await page.close();
  });
});
