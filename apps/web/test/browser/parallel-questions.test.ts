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

/** Two subtasks side by side, each asking its own question; a lone subtask's question in another thread. */
function respond(request: ProviderRequest): ScriptedStep {
  const first = request.messages.find((m) => m.role === "user");
  const task = typeof first?.content === "string" ? first.content : "";
  const last = request.messages.at(-1);
  const answered = last?.role === "tool";
  if (task === "sub:a")
    return answered
      ? { text: `A got ${last.content}.` }
      : { toolCalls: [{ name: "ask_user", args: { question: "Colour?" } }] };
  if (task === "sub:b")
    return answered
      ? { text: `B got ${last.content}.` }
      : { toolCalls: [{ name: "ask_user", args: { question: "Size?" } }] };
  if (answered) return { text: "Both done." };
  const parts = task === "One part" ? ["a"] : ["a", "b"];
  return {
    toolCalls: parts.map((p) => ({
      name: "run_subtask",
      args: { title: `Part ${p.toUpperCase()}`, instructions: `sub:${p}` },
    })),
  };
}

/** Questions from parallel subtasks in chromium against the real server: each names the subtask that asks. */
describe("questions from parallel subtasks", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-questions-"));
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

  it("names the asking subtask in the question and in the composer, as the CLI does", async () => {
    const page = await browser.newPage();
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    await chat.send("Two parts");
    const expected: Record<string, string> = {
      "Part A asks: Colour?": "red",
      "Part B asks: Size?": "large",
    };
    const composer = page.getByLabel("Message", { exact: true });
    // The two ask in either order; each is answered in its own box as it comes.
    for (let i = 0; i < 2; i++) {
      const open = page.locator("form.question .question-text");
      await open.waitFor();
      const text = (await open.textContent()) ?? "";
      expect(Object.keys(expected)).toContain(text);
      expect(await composer.getAttribute("placeholder")).toBe(`Your answer to: ${text}`);
      await chat.answerQuestion(text, expected[text] as string);
      delete expected[text];
      await page.locator("form.question .question-text", { hasText: text }).waitFor({ state: "detached" });
    }
    await chat.waitForText("Both done.");
    await chat.waitForIdle();
    // Answered, each question still says who asked it, above its answer.
    const resolved = await page.locator("section.question.resolved").allInnerTexts();
    expect(resolved.map((t) => t.replace(/\s+/g, " ").trim()).sort()).toEqual([
      "Part A asks: Colour? You answered: red",
      "Part B asks: Size? You answered: large",
    ]);
    await page.close();
  });

  it("asks a lone subtask's question as it is: its card says where it is", async () => {
    const page = await browser.newPage();
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl);
    await chat.send("One part");
    const open = page.locator("form.question .question-text");
    await open.waitFor();
    expect(await open.textContent()).toBe("Colour?");
    await chat.answerQuestion("Colour?", "blue");
    await chat.waitForText("Both done.");
    await page.close();
  });
});
