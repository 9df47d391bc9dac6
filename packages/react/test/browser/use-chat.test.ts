import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildChatApp, serveApp } from "./build-app.js";

const lastUserText = (r: ProviderRequest) => {
  const user = r.messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : "";
};

/** The scripted model: each test's message says what it does; two answers wait on gates mid-stream. */
function script(gates: { one: ReturnType<typeof gate>; two: ReturnType<typeof gate> }) {
  return (r: ProviderRequest): ScriptedStep => {
    const last = r.messages.at(-1);
    const answered = last?.role === "tool" ? last.content : undefined;
    switch (lastUserText(r)) {
      case "hold one":
        return { text: "Drafting the answer. ", hold: gates.one.promise };
      case "hold two":
        return { text: "Second draft. ", hold: gates.two.promise };
      case "Ask me":
        if (answered === undefined)
          return { toolCalls: [{ name: "ask_user", args: { question: "Which colour?" } }] };
        return { text: `You chose ${answered}.` };
      case "Work slowly":
        return { text: "Working.", hold: "until-aborted" };
      default:
        return { text: "Hi." };
    }
  };
}

let browser: Browser;
let workspace: string;
beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), "agentwire-react-"));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

/** The React hooks in Chromium, against a real server, on React 19 and 18. */
describe.each(["19", "18"] as const)("useChat on React %s", { timeout: 90_000 }, (react) => {
  let server: ChatTestServer;
  let dist: string;
  const gates = { one: gate(), two: gate() };

  beforeAll(async () => {
    dist = join(workspace, `react-${react}`);
    await buildChatApp(dist, react);
    server = await startChatServer(script(gates), { allowedOrigins: ["*"] });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A page at the server's origin running the test app; the socket and HTTP reach the real server. */
  async function openPage(): Promise<Page> {
    const page = await browser.newPage();
    await serveApp(page, server.httpUrl, dist);
    await page.goto(server.httpUrl);
    await page.waitForFunction(() => window.chatApp !== undefined);
    expect(await page.evaluate(() => window.chatApp.react)).toMatch(new RegExp(`^${react}\\.`));
    return page;
  }

  /** Waits for the status; on a timeout the error says every status the component went through. */
  const status = async (page: Page, s: string) => {
    try {
      await page.locator(`#chat[data-status="${s}"]`).waitFor();
    } catch (error) {
      const seen = await page.evaluate(() => window.chatApp.statuses()).catch(() => "unknown");
      const shown = await page
        .locator("#chat")
        .getAttribute("data-error", { timeout: 1000 })
        .catch(() => "unknown");
      throw new Error(
        `status ${s} never came: statuses ${JSON.stringify(seen)}, data-error ${JSON.stringify(shown)}`,
        {
          cause: error,
        },
      );
    }
  };
  const rows = (page: Page) =>
    page
      .locator("#messages li")
      .evaluateAll((lis) => lis.map((li) => `${li.dataset.role}: ${li.textContent}`));
  const live = (page: Page) => page.locator("#live").textContent();
  const threadOf = async (page: Page) => {
    await page.locator('#chat:not([data-thread=""])').waitFor();
    return (await page.locator("#chat").getAttribute("data-thread")) as string;
  };

  it("a component remounted mid-turn shows the turn where it is, and its end, each row and each text once", async () => {
    const page = await openPage();
    await page.evaluate(() => window.chatApp.mount());
    expect(await page.locator("#chat").getAttribute("data-status")).toBe("idle");
    await page.evaluate(() => window.chatApp.send("hold one"));
    await page.locator("#live", { hasText: "Drafting the answer." }).waitFor();
    await status(page, "running");
    const threadId = await threadOf(page);

    await page.evaluate(() => window.chatApp.unmount());
    expect(await page.locator("#chat").count()).toBe(0);
    await page.evaluate((id) => window.chatApp.mount(id), threadId);
    await page.locator("#live", { hasText: "Drafting the answer." }).waitFor();
    await status(page, "running");
    expect(await live(page)).toBe("Drafting the answer. ");
    expect(await rows(page)).toEqual(["user: hold one"]);

    gates.one.open();
    await status(page, "complete");
    expect(await live(page)).toBe("Drafting the answer. ");
    expect(await rows(page)).toEqual(["user: hold one", "assistant: Drafting the answer. "]);
    expect(await page.locator("#chat").getAttribute("data-thread")).toBe(threadId);

    // Opened again once finished: the replay of the ended turn never shows as running.
    await page.evaluate(() => window.chatApp.unmount());
    await page.evaluate((id) => window.chatApp.mount(id), threadId);
    await status(page, "complete");
    expect(await page.evaluate(() => window.chatApp.statuses())).toEqual(["loading", "complete"]);
    expect(await rows(page)).toEqual(["user: hold one", "assistant: Drafting the answer. "]);
    expect(await live(page)).toBe("Drafting the answer. ");
    await page.close();
  });

  it("a page opened mid-turn resumes it over the earlier turns' rows; a second send meanwhile is refused", async () => {
    const writer = await openPage();
    await writer.evaluate(() => window.chatApp.mount());
    await writer.evaluate(() => window.chatApp.send("Say hi"));
    await status(writer, "complete");
    await writer.evaluate(() => window.chatApp.send("hold two"));
    await writer.locator("#live", { hasText: "Second draft." }).waitFor();
    const threadId = await threadOf(writer);
    // Refused, not queued (the default queues it: see chat-session-branches.test.ts).
    await writer.evaluate(() => window.chatApp.send("too soon", "reject"));
    await writer.locator('#chat[data-error="busy"]').waitFor();
    await status(writer, "running");

    // Another page, its own client: the rows come over HTTP, the running turn by resume_chat.
    const reader = await openPage();
    await reader.evaluate((id) => window.chatApp.mount(id), threadId);
    await reader.locator("#live", { hasText: "Second draft." }).waitFor();
    await status(reader, "running");
    expect(await rows(reader)).toEqual(["user: Say hi", "assistant: Hi.", "user: hold two"]);

    gates.two.open();
    await status(reader, "complete");
    await status(writer, "complete");
    const all = ["user: Say hi", "assistant: Hi.", "user: hold two", "assistant: Second draft. "];
    expect(await rows(reader)).toEqual(all);
    expect(await rows(writer)).toEqual(all);
    expect(await live(reader)).toBe("Second draft. ");
    await writer.close();
    await reader.close();
  });

  it("answers a question and stops a turn through the hook", async () => {
    const page = await openPage();
    await page.evaluate(() => window.chatApp.mount());
    await page.evaluate(() => window.chatApp.send("Ask me"));
    await status(page, "waiting_user");
    await page.locator("#questions li", { hasText: "Which colour?" }).waitFor();
    await page.evaluate(() => window.chatApp.answer("blue"));
    await status(page, "complete");
    expect((await rows(page)).at(-1)).toBe("assistant: You chose blue.");

    await page.evaluate(() => window.chatApp.send("Work slowly"));
    await page.locator("#live", { hasText: "Working." }).waitFor();
    await page.evaluate(() => window.chatApp.stop());
    await status(page, "stopped");
    expect(await page.locator("#chat").getAttribute("data-error")).toBe("");
    await page.close();
  });
});
