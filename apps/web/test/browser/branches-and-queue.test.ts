import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelMessage, ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { startChatServer } from "./chat-server.js";
import { Gate } from "./scripted-chat.js";
import { buildApp, serveApp } from "./serve-app.js";

const WAIT = { timeout: 15_000 };

/**
 * The model of these tests answers the conversation's LAST user message (so a queued, steered or
 * edited message gets its own answer): "Hold …" waits on a gate the test opens, "Stall …" streams
 * until stopped, "Slow steps …" holds before a tool call and answers the newest user message after
 * it (a steered one), "Ask then …" holds, then asks, "Fact …" counts its answers (regenerate), and
 * anything else is echoed.
 */
function responder(gates: Map<string, Gate>) {
  const counts = new Map<string, number>();
  const gate = (key: string) => {
    let g = gates.get(key);
    if (!g) {
      g = new Gate();
      gates.set(key, g);
    }
    return g;
  };
  return (request: ProviderRequest): ScriptedStep => {
    const users = request.messages.filter((m) => m.role === "user");
    const last = textOf(users[users.length - 1]);
    const results = request.messages.filter((m) => m.role === "tool");
    if (last.startsWith("Hold")) return { text: `Held answer to ${last}.`, hold: gate(last).promise };
    if (last.startsWith("Stall")) return { text: "Stalling.", hold: "until-aborted" };
    if (last.startsWith("Ask then"))
      return results.length === 0
        ? { hold: gate(last).promise, toolCalls: [{ name: "ask_user", args: { question: "Which colour?" } }] }
        : { text: `You chose ${textOf(results[results.length - 1])}.` };
    if (last.startsWith("Fact")) {
      const n = (counts.get(last) ?? 0) + 1;
      counts.set(last, n);
      return { text: `Fact number ${n} about ${last}.` };
    }
    const first = textOf(users[0]);
    if (first.startsWith("Slow steps"))
      return results.length === 0
        ? {
            text: "Step one. ",
            hold: gate(first).promise,
            toolCalls: [{ name: "lookup_price", args: { shop: "A" } }],
          }
        : { text: `Echo: ${last}` };
    return { text: `Echo: ${last}` };
  };
}

function textOf(message: ModelMessage | undefined): string {
  if (!message) return "";
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : ""))
      .join("");
  return "";
}

const VIEWPORTS = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 375, height: 740 } },
] as const;

describe.each(VIEWPORTS)(
  "edit, regenerate, branches and the queue on $name",
  { timeout: 90_000 },
  ({ name, viewport }) => {
    let browser: Browser;
    let server: TestServer;
    let workspace: string;
    let page: Page;
    let chat: ChatPage;
    const gates = new Map<string, Gate>();
    const open = (key: string) => {
      let g = gates.get(key);
      if (!g) {
        g = new Gate();
        gates.set(key, g);
      }
      g.open();
    };

    beforeAll(async () => {
      workspace = mkdtempSync(join(tmpdir(), `agentwire-web-branches-${name}-`));
      const dist = join(workspace, "dist");
      await buildApp(dist);
      server = await startChatServer({ respond: responder(gates), workspaceDir: workspace });
      browser = await launchBrowser();
    });

    afterAll(async () => {
      for (const g of gates.values()) g.open();
      await browser?.close();
      await server?.close();
      if (workspace) rmSync(workspace, { recursive: true, force: true });
    });

    beforeEach(async () => {
      page = await browser.newPage({ viewport });
      await serveApp(page, server.httpUrl, join(workspace, "dist"));
      chat = new ChatPage(page);
      await chat.open(server.httpUrl);
    });

    afterEach(async () => {
      await page?.close();
    });

    const userMessage = (text: string): Locator => page.locator(".user-message", { hasText: text });
    const answer = (text: string): Locator => page.locator(".bubble.assistant", { hasText: text });
    const chips = (): Locator => page.locator(".queue-chip");

    async function reload(): Promise<void> {
      await page.reload();
      await page.locator("output.conn-open").waitFor(WAIT);
    }

    /** Nothing wider than the screen, and every control of ours inside it (reachable without sideways scrolling). */
    async function fitsScreen(): Promise<void> {
      const { scrollWidth, outside } = await page.evaluate(() => {
        const width = window.innerWidth;
        const controls = document.querySelectorAll(
          ".composer button, .queue button, .message-actions button, .answer-actions button, .edit-message button",
        );
        const outside = [...controls]
          .map((el) => ({ el, r: el.getBoundingClientRect() }))
          .filter(({ r }) => r.width > 0 && (r.left < 0 || r.right > width + 0.5))
          .map(({ el }) => el.getAttribute("aria-label") ?? el.textContent);
        return { scrollWidth: document.documentElement.scrollWidth, outside };
      });
      expect(outside).toEqual([]);
      expect(scrollWidth).toBeLessThanOrEqual(viewport.width);
    }

    it("edits a message into a new branch, and the arrows switch branches, also after a reload", async () => {
      const first = `Colour red ${name}`;
      await chat.send(first);
      await chat.waitForText(`Echo: ${first}`);
      await chat.waitForIdle();
      await chat.send(`Second ${name}`);
      await chat.waitForText(`Echo: Second ${name}`);
      await chat.waitForIdle();

      // Edit the first message: the turns after it belong to the old branch and leave the view.
      await userMessage(first).getByRole("button", { name: "Edit message" }).click();
      const box = page.getByLabel("Edit your message");
      await box.waitFor(WAIT);
      if (name === "phone") await fitsScreen();
      await box.fill(`Colour blue ${name}`);
      await page.locator("form.edit-message").getByRole("button", { name: "Send", exact: true }).click();
      await chat.waitForText(`Echo: Colour blue ${name}`);
      await chat.waitForIdle();
      expect(await chat.countText(`Second ${name}`)).toBe(0);
      expect(await chat.countText(first)).toBe(0);
      const arrows = userMessage(`Colour blue ${name}`).locator(".branch-arrows");
      await arrows.waitFor(WAIT);
      expect(await arrows.getAttribute("data-branch")).toBe("2/2");
      if (name === "phone") await fitsScreen();

      // Back to the first branch: its whole path comes back.
      await arrows.getByRole("button", { name: "Previous branch" }).click();
      await chat.waitForText(`Echo: Second ${name}`);
      await chat.waitForText(first);
      expect(await chat.countText(`Colour blue ${name}`)).toBe(0);
      expect(await userMessage(first).locator(".branch-arrows").getAttribute("data-branch")).toBe("1/2");
      expect(await userMessage(first).getByRole("button", { name: "Previous branch" }).isDisabled()).toBe(
        true,
      );

      // A reload shows the branch chosen last, with its arrows.
      await reload();
      await chat.waitForText(`Echo: Second ${name}`);
      await userMessage(first).locator(".branch-arrows").waitFor(WAIT);
      expect(await userMessage(first).locator(".branch-arrows").getAttribute("data-branch")).toBe("1/2");
      await userMessage(first).getByRole("button", { name: "Next branch" }).click();
      await chat.waitForText(`Echo: Colour blue ${name}`);
      expect(await chat.countText(`Second ${name}`)).toBe(0);
      if (name === "phone") await fitsScreen();
    });

    it("edits a later message after the answer before it", async () => {
      await chat.send(`Alpha ${name}`);
      await chat.waitForText(`Echo: Alpha ${name}`);
      await chat.waitForIdle();
      await chat.send(`Beta ${name}`);
      await chat.waitForText(`Echo: Beta ${name}`);
      await chat.waitForIdle();
      await userMessage(`Beta ${name}`).getByRole("button", { name: "Edit message" }).click();
      await page.getByLabel("Edit your message").fill(`Gamma ${name}`);
      await page.locator("form.edit-message").getByRole("button", { name: "Send", exact: true }).click();
      await chat.waitForText(`Echo: Gamma ${name}`);
      await chat.waitForIdle();
      // The first exchange stays; the edited one is replaced, and says it has an alternative.
      expect(await chat.countText(`Echo: Alpha ${name}`)).toBe(1);
      expect(await chat.countText(`Echo: Beta ${name}`)).toBe(0);
      expect(await userMessage(`Gamma ${name}`).locator(".branch-arrows").getAttribute("data-branch")).toBe(
        "2/2",
      );
      // Cancel leaves the message as it was.
      await userMessage(`Alpha ${name}`).getByRole("button", { name: "Edit message" }).click();
      await page.locator("form.edit-message").getByRole("button", { name: "Cancel" }).click();
      await userMessage(`Alpha ${name}`).waitFor(WAIT);
      expect(await chat.countText(`Echo: Gamma ${name}`)).toBe(1);
    });

    it("regenerates an answer beside the old one, and the arrows show either", async () => {
      const question = `Fact one ${name}`;
      await chat.send(question);
      await chat.waitForText(`Fact number 1 about ${question}.`);
      await chat.waitForIdle();
      await answer("Fact number 1").getByRole("button", { name: "Regenerate" }).click();
      await chat.waitForText(`Fact number 2 about ${question}.`);
      await chat.waitForIdle();
      expect(await chat.countText("Fact number 1")).toBe(0);
      const arrows = answer("Fact number 2").locator(".branch-arrows");
      await arrows.waitFor(WAIT);
      expect(await arrows.getAttribute("data-branch")).toBe("2/2");
      if (name === "phone") await fitsScreen();

      await arrows.getByRole("button", { name: "Previous branch" }).click();
      await chat.waitForText(`Fact number 1 about ${question}.`);
      expect(await chat.countText("Fact number 2")).toBe(0);
      expect(await answer("Fact number 1").locator(".branch-arrows").getAttribute("data-branch")).toBe("1/2");

      await reload();
      await chat.waitForText(`Fact number 1 about ${question}.`);
      expect(await chat.countText("Fact number 2")).toBe(0);
      await answer("Fact number 1").getByRole("button", { name: "Next branch" }).click();
      await chat.waitForText(`Fact number 2 about ${question}.`);
      // One question, one answer shown: the branch's.
      expect(await chat.countText("Fact number")).toBe(1);
      expect(await chat.countText(`You: ${question}`)).toBe(1);
    });

    it("queues messages while a turn runs, cancels one, keeps the queue over a reload, then answers it", async () => {
      const hold = `Hold queue ${name}`;
      await chat.send(hold);
      await chat.waitForText(`Held answer to ${hold}.`);
      // The composer stays usable: Enter queues.
      await chat.send(`Queued one ${name}`);
      await chips()
        .filter({ hasText: `Queued one ${name}` })
        .waitFor(WAIT);
      await chat.send(`Queued two ${name}`);
      await chips()
        .filter({ hasText: `Queued two ${name}` })
        .waitFor(WAIT);
      expect(await chips().count()).toBe(2);
      expect(await chips().first().textContent()).toContain(`Queued one ${name}`);
      await page.getByRole("button", { name: "Send now" }).waitFor(WAIT);
      await page.getByRole("button", { name: "Stop and send" }).waitFor(WAIT);
      if (name === "phone") await fitsScreen();

      await chips()
        .filter({ hasText: `Queued two ${name}` })
        .getByRole("button", { name: "Cancel queued message" })
        .click();
      await chips()
        .filter({ hasText: `Queued two ${name}` })
        .waitFor({ state: "detached", ...WAIT });
      expect(await chips().count()).toBe(1);

      // After a reload the queue comes from the server.
      await reload();
      await chips()
        .filter({ hasText: `Queued one ${name}` })
        .waitFor(WAIT);
      expect(await chips().count()).toBe(1);

      open(hold);
      await chat.waitForText(`Echo: Queued one ${name}`);
      await chat.waitForIdle();
      expect(await chips().count()).toBe(0);
      expect(await chat.countText(`Queued two ${name}`)).toBe(0);
      // The queued message is on the branch, after the held answer.
      const transcript = await chat.transcript();
      expect(transcript.indexOf(`Held answer to ${hold}.`)).toBeLessThan(
        transcript.indexOf(`Echo: Queued one ${name}`),
      );
    });

    it("queued messages say they wait while the turn waits on the user's answer", async () => {
      const ask = `Ask then queue ${name}`;
      await chat.send(ask);
      await chat.waitForState("thinking");
      await chat.send(`After the answer ${name}`);
      await chips()
        .filter({ hasText: `After the answer ${name}` })
        .waitFor(WAIT);
      open(ask);
      await chat.waitForState("waiting_user");
      await chips().filter({ hasText: "waiting for your answer" }).waitFor(WAIT);
      await reload();
      await chips().filter({ hasText: "waiting for your answer" }).waitFor(WAIT);
      await chat.answerQuestion("Which colour?", "green");
      await chat.waitForText("You chose green.");
      await chat.waitForText(`Echo: After the answer ${name}`);
      await chat.waitForIdle();
      expect(await chips().count()).toBe(0);
    });

    it("Stop & send stops the running turn and answers the new message next", async () => {
      await chat.send(`Stall ${name}`);
      await chat.waitForText("Stalling.");
      const box = page.getByLabel("Message", { exact: true });
      await box.fill(`Instead ${name}`);
      await page.getByRole("button", { name: "Stop and send" }).click();
      await chat.waitForText(`Echo: Instead ${name}`);
      await chat.waitForIdle();
      await page.getByText("Stopped. The answer so far is kept.").waitFor(WAIT);
    });

    it("Send now adds the message to the running turn", async () => {
      const steps = `Slow steps ${name}`;
      await chat.send(steps);
      await chat.waitForText("Step one.");
      const box = page.getByLabel("Message", { exact: true });
      await box.fill(`Also this ${name}`);
      await page.getByRole("button", { name: "Send now" }).click();
      await chips()
        .filter({ hasText: `Also this ${name}` })
        .waitFor(WAIT);
      open(steps);
      // The model's next call sees it: the same turn answers it.
      await chat.waitForText(`Echo: Also this ${name}`);
      await chat.waitForIdle();
      expect(await chips().count()).toBe(0);
      expect(await page.locator(".bubble.user.steered", { hasText: `Also this ${name}` }).count()).toBe(1);
    });
  },
);
