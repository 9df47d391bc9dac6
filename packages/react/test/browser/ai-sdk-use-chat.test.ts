import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { until } from "@agentwire-chat/testkit/until";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildChatApp, serveApp } from "./build-app.js";

const lastUserText = (r: ProviderRequest) => {
  const user = r.messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : "";
};

let browser: Browser;
let workspace: string;
let server: ChatTestServer;
const held = gate();
let answers = 0;

beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), "agentwire-ai-sdk-"));
  await buildChatApp(workspace, "19", "ai-sdk-app.ts");
  browser = await launchBrowser();
  // Each test's message says what the model does; "hold" waits on a gate between two model calls.
  const script = (r: ProviderRequest): ScriptedStep => {
    const called = r.messages.at(-1)?.role === "tool";
    switch (lastUserText(r)) {
      case "hold":
        return called
          ? { gate: held.promise, text: "second half." }
          : { text: "First half, ", toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }] };
      case "Work slowly":
        return { text: "Working.", hold: "until-aborted" };
      case "again":
        return { text: `Answer ${++answers}.` };
      default:
        return { text: ["Hello ", "from ", "agentwire."] };
    }
  };
  server = await startChatServer(script, { extraTools: [echoTool()] });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

/** The AI SDK's useChat in Chromium, with WebSocketChatTransport pointed at /ws/ai-sdk of a real server. */
describe("useChat from @ai-sdk/react over /ws/ai-sdk", { timeout: 90_000 }, () => {
  async function openPage(chatId: string, page?: Page): Promise<Page> {
    const p = page ?? (await browser.newPage());
    if (!page) await serveApp(p, server.httpUrl, workspace);
    await p.goto(server.httpUrl);
    await p.waitForFunction(() => window.aiChat !== undefined);
    await p.evaluate((id) => window.aiChat.mount(id), chatId);
    await p.locator("#chat").waitFor({ state: "attached" });
    return p;
  }
  const rows = (page: Page) =>
    page
      .locator("#messages li")
      .evaluateAll((lis) => lis.map((li) => `${li.dataset.role}: ${li.textContent}`));
  const status = (page: Page, s: string) =>
    page.locator(`#chat[data-status="${s}"]`).waitFor({ state: "attached" });

  it("sends and streams an answer", async () => {
    const page = await openPage("browser-send");
    await page.evaluate(() => window.aiChat.send("Hi"));
    await page.locator('#messages li[data-role="assistant"]', { hasText: "Hello from agentwire." }).waitFor();
    await status(page, "ready");
    expect(await rows(page)).toEqual(["user: Hi", "assistant: Hello from agentwire."]);
    await page.close();
  });

  it("a page reloaded mid-turn resumes it: the same message, then the rest live", async () => {
    const page = await openPage("browser-reload");
    await page.evaluate(() => window.aiChat.send("hold"));
    const partial = page.locator('#messages li[data-role="assistant"]', { hasText: "First half," });
    await partial.waitFor();
    const messageId = await partial.getAttribute("data-id");
    await page.reload();
    await openPage("browser-reload", page);
    // A fresh page knows no messages: the resumed replay rebuilds the assistant's under the same id.
    const resumed = page.locator(`#messages li[data-id="${messageId}"]`, { hasText: "First half," });
    await resumed.waitFor();
    held.open();
    await page
      .locator(`#messages li[data-id="${messageId}"]`, { hasText: "First half, second half." })
      .waitFor();
    await status(page, "ready");
    expect(await page.locator('#messages li[data-role="assistant"]').count()).toBe(1);
    await page.close();
  });

  it("regenerate() answers again beside the old answer; an edited message becomes a sibling", async () => {
    type Listed = { role: string; content: unknown; sibling_ids?: string[] };
    const branch = async () => {
      const response = await server.fetch("/api/threads/browser-branches/messages");
      return ((await response.json()) as { messages: Listed[] }).messages;
    };
    const page = await openPage("browser-branches");
    await page.evaluate(() => window.aiChat.send("again"));
    await page.locator('#messages li[data-role="assistant"]', { hasText: "Answer 1." }).waitFor();
    await status(page, "ready");
    await page.evaluate(() => window.aiChat.regenerate());
    await page.locator('#messages li[data-role="assistant"]', { hasText: "Answer 2." }).waitFor();
    await status(page, "ready");
    expect(await rows(page)).toEqual(["user: again", "assistant: Answer 2."]);
    let stored = await branch();
    expect(stored.map((m) => m.content)).toEqual(["again", "Answer 2."]);
    expect(stored[1]?.sibling_ids).toHaveLength(2);

    await page.evaluate(() => window.aiChat.send("Hi"));
    await page.locator('#messages li[data-role="assistant"]', { hasText: "Hello from agentwire." }).waitFor();
    await status(page, "ready");
    await page.evaluate(() => window.aiChat.edit(2, "again"));
    await page.locator('#messages li[data-role="assistant"]', { hasText: "Answer 3." }).waitFor();
    await status(page, "ready");
    expect(await rows(page)).toEqual([
      "user: again",
      "assistant: Answer 2.",
      "user: again",
      "assistant: Answer 3.",
    ]);
    stored = await branch();
    expect(stored.map((m) => m.content)).toEqual(["again", "Answer 2.", "again", "Answer 3."]);
    expect(stored[2]?.sibling_ids).toHaveLength(2);
    await page.close();
  });

  it("stops a turn: stored as stopped with its partial answer", async () => {
    const page = await openPage("browser-stop");
    await page.evaluate(() => window.aiChat.send("Work slowly"));
    await page.locator('#messages li[data-role="assistant"]', { hasText: "Working." }).waitFor();
    await page.evaluate(() => window.aiChat.stop());
    await status(page, "ready");
    await until(
      async () =>
        (await server.repos.turns.latest("local", "browser-stop"))?.status === "stopped" || undefined,
      "the stored stop",
    );
    const stored = await server.repos.messages.list("local", "browser-stop");
    expect(stored.at(-1)).toMatchObject({ role: "assistant", content: "Working.", status: "stopped" });
    await page.close();
  });
});
