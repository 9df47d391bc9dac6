import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildChatApp, serveApp } from "./build-app.js";

const DOC = fileURLToPath(new URL("../../../../docs/ai-sdk.md", import.meta.url));

/**
 * The React example of docs/ai-sdk.md: the one tsx block under "A React example", with only its
 * `SERVER` and `TOKEN` lines filled in (each must be there exactly once, as the reader sees it).
 */
function docExample(server: string, token: string): string {
  const doc = readFileSync(DOC, "utf8");
  const section = doc.slice(doc.indexOf("## A React example"));
  const code = /```tsx\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!code) throw new Error("docs/ai-sdk.md: no tsx block under 'A React example'");
  const fill = (text: string, line: RegExp, value: string) => {
    if ((text.match(new RegExp(line, "gm")) ?? []).length !== 1)
      throw new Error(`docs/ai-sdk.md's example: expected one line matching ${line}`);
    return text.replace(line, value);
  };
  const withServer = fill(code, /^const SERVER = ".*";$/m, `const SERVER = ${JSON.stringify(server)};`);
  return fill(withServer, /^const TOKEN = ".*";/m, `const TOKEN = ${JSON.stringify(token)};`);
}

const lastUserText = (r: ProviderRequest) => {
  const user = r.messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : "";
};

/** Parallel subtasks that stream and call a tool, and a question: every kind of part the example keys. */
function respond(r: ProviderRequest): ScriptedStep {
  const last = r.messages.at(-1);
  const answered = last?.role === "tool";
  switch (lastUserText(r)) {
    case "sub:A":
      return answered
        ? { text: ["A ", "done"] }
        : { text: ["A ", "looks "], toolCalls: [{ id: "echo_a", name: "echo", args: { text: "a" } }] };
    case "sub:B":
      return { text: ["B ", "is ", "done"] };
    case "Ask me":
      return answered
        ? { text: `Painted ${last?.content}.` }
        : { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which colour?" } }] };
    default:
      return answered
        ? { text: "All done." }
        : {
            text: "Splitting. ",
            toolCalls: [
              { id: "sub_a", name: "run_subtask", args: { title: "Task A", instructions: "sub:A" } },
              { id: "sub_b", name: "run_subtask", args: { title: "Task B", instructions: "sub:B" } },
            ],
          };
  }
}

let browser: Browser;
let workspace: string;
let server: ChatTestServer;

beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), "agentwire-ai-sdk-doc-"));
  server = await startChatServer(respond, { auth: "token", extraTools: [echoTool()] });
  const token = await server.createToken("alice");
  const socket = `${server.httpUrl.replace(/^http/, "ws")}/ws/ai-sdk`;
  await buildChatApp(workspace, "19", "ai-sdk-doc-app.ts", { "doc-example": docExample(socket, token) });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

/** docs/ai-sdk.md's React example in Chromium, against a real server with token auth. */
describe("the React example of docs/ai-sdk.md, as written", { timeout: 90_000 }, () => {
  it("draws a parallel turn and answers a question with one element per part and no React key warning", async () => {
    const page: Page = await browser.newPage();
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    await serveApp(page, server.httpUrl, workspace);
    await page.goto(server.httpUrl);
    await page.waitForFunction(() => window.docExample !== undefined);
    await page.evaluate(() => window.docExample.mount("doc-example"));
    // The composer is the last form; while a turn streams its button is Stop, Send otherwise.
    const composer = page.locator("form").last();
    const send = async (text: string) => {
      await composer.locator("input").fill(text);
      await composer.getByRole("button", { name: "Send" }).click();
    };
    const idle = () => composer.getByRole("button", { name: "Send" }).waitFor();

    await send("Split it");
    await page.getByText("All done.").waitFor();
    await idle();
    const tools = () => page.locator("code").allTextContents();
    expect(await tools()).toEqual(["run_subtask: output-available", "run_subtask: output-available"]);
    // One element per node, in the order the parallel calls started (which varies): compared sorted.
    const nodes = await page.locator("div[style]").allTextContents();
    expect(nodes.sort()).toEqual([
      "Task A · completeA looks A done",
      "Task B · completeB is done",
      "echo · complete",
    ]);

    await send("Ask me");
    const question = page.locator("form", { hasText: "Which colour?" });
    await question.locator("input").fill("blue");
    await question.locator("input").press("Enter");
    await page.getByText("Painted blue.").waitFor();
    await idle();
    expect(await tools()).toEqual([
      "run_subtask: output-available",
      "run_subtask: output-available",
      "ask_user: output-available",
    ]);
    expect(await page.getByText("ask_user · complete").count()).toBe(1);
    // React says so on the console when two siblings share a key (and then draws parts twice).
    expect(errors.filter((e) => /same key|unique "?key/i.test(e))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
