import type { Page } from "playwright-core";

/** A card as the page shows it. */
export type CardInfo = { id: string; depth: number; label: string; expanded: boolean; status: string };

const WAIT_MS = 15_000;

/** What the browser tests do and read on the page, by role and label (as a keyboard or screen reader user would). */
export class ChatPage {
  constructor(readonly page: Page) {}

  async open(origin: string, hash = "#/"): Promise<void> {
    await this.page.goto(`${origin}/${hash}`);
    await this.page.locator("output.conn-open").waitFor({ timeout: WAIT_MS });
  }

  /** Types a message and sends it with Enter, keyboard only. */
  async send(text: string): Promise<void> {
    const box = this.page.getByLabel("Message", { exact: true });
    await box.focus();
    await this.page.keyboard.type(text);
    await this.page.keyboard.press("Enter");
  }

  /** Waits until the conversation shows `text`. */
  async waitForText(text: string, timeout = WAIT_MS): Promise<void> {
    await this.page.waitForFunction(
      (t) => document.querySelector('[role="log"]')?.textContent?.includes(t) ?? false,
      text,
      { timeout, polling: 50 },
    );
  }

  /** Waits until the current turn is over (the status line is idle and Send is back). */
  async waitForIdle(timeout = WAIT_MS): Promise<void> {
    await this.page.locator('output.agent-status[data-state="idle"]').waitFor({ state: "attached", timeout });
    await this.page.getByRole("button", { name: "Send", exact: true }).waitFor({ timeout });
  }

  async waitForState(state: "thinking" | "writing" | "executing" | "waiting_user"): Promise<void> {
    await this.page
      .locator(`output.agent-status[data-state="${state}"]`)
      .waitFor({ state: "attached", timeout: WAIT_MS });
  }

  /** How many times `text` occurs in the conversation (duplicates after a resume would show here). */
  async countText(text: string): Promise<number> {
    const all = (await this.page.getByRole("log").textContent()) ?? "";
    return all.split(text).length - 1;
  }

  /** Every card (tool calls, subtasks, questions) in page order. */
  async cards(): Promise<CardInfo[]> {
    return this.page.$$eval("[data-card-id]", (nodes) =>
      nodes.map((n) => {
        const head = n.querySelector(":scope > .card-head");
        return {
          id: n.getAttribute("data-card-id") ?? "",
          depth: Number(n.getAttribute("data-depth")),
          label: n.querySelector(":scope > .card-head .card-name")?.textContent ?? "",
          expanded: head?.getAttribute("aria-expanded") === "true",
          status: n.getAttribute("data-status") ?? "",
        };
      }),
    );
  }

  /** The conversation as a reader sees it: its rendered text, in order. */
  async transcript(): Promise<string> {
    return this.page.getByRole("log").innerText();
  }

  /** The turn's usage line ("" when there is none). */
  async usageLine(): Promise<string> {
    const line = this.page.locator(".usage");
    return (await line.count()) === 0 ? "" : ((await line.last().textContent()) ?? "");
  }

  /** Waits for a card whose header shows `label` (a subtask's title or a tool's name). */
  async waitForCard(label: string, timeout = WAIT_MS): Promise<void> {
    await this.page.locator(".card-head .card-name", { hasText: label }).first().waitFor({ timeout });
  }

  /** Opens a collapsed card with the keyboard: focus its header button and press Enter. */
  async toggleCard(id: string): Promise<void> {
    await this.page.locator(`[data-card-id="${id}"] > .card-head`).focus();
    await this.page.keyboard.press("Enter");
  }

  async stop(): Promise<void> {
    await this.page.getByRole("button", { name: "Stop", exact: true }).click();
  }

  /** Answers in the question's own box. */
  async answerQuestion(question: string, answer: string): Promise<void> {
    const input = this.page.getByLabel(question);
    await input.waitFor({ timeout: WAIT_MS });
    await input.fill(answer);
    await this.page.locator("form.question").getByRole("button", { name: "Answer", exact: true }).click();
  }

  async decide(label: "Allow" | "Allow for this thread" | "Deny"): Promise<void> {
    const button = this.page.getByRole("button", { name: label, exact: true });
    await button.waitFor({ timeout: WAIT_MS });
    await button.click();
  }

  /** Closes the WebSocket as a network failure would; the page must reconnect and resume. */
  async dropSocket(): Promise<void> {
    await this.page.evaluate(() =>
      (window as unknown as { agentwire: { dropSocket(): void } }).agentwire.dropSocket(),
    );
  }

  async threadId(): Promise<string | undefined> {
    await this.page.waitForFunction(
      () => location.hash.includes("/t/") || location.hash.includes("/editor/"),
      undefined,
      {
        timeout: WAIT_MS,
      },
    );
    return decodeURIComponent(new URL(this.page.url()).hash.split("/")[2] ?? "");
  }
}
