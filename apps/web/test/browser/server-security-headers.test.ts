import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedProviderModule } from "@agentwire-chat/testkit/fixtures";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../server/src/config.js";
import { contentSecurityPolicyHeader } from "../../../server/src/content-security-policy.js";
import { type RunningServer, startServer } from "../../../server/src/start-server.js";
import { ChatPage } from "./chat-page.js";
import { buildApp } from "./serve-app.js";

const provider = scriptedProviderModule;

/** A `securitypolicyviolation` event as the page saw it (the source says which script to blame). */
type Violation = { directive: string; blocked: string; source: string };

/** Records every CSP violation the page sees, from before its own scripts run. */
async function watchViolations(page: Page): Promise<{ console: string[] }> {
  await page.addInitScript(() => {
    const seen: Violation[] = [];
    (window as unknown as { cspViolations: Violation[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (event) => {
      const source = `${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`;
      seen.push({ directive: event.violatedDirective, blocked: event.blockedURI, source });
    });
  });
  const console: string[] = [];
  page.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) console.push(message.text());
  });
  return { console };
}

const violations = (page: Page) =>
  page.evaluate(() => (window as unknown as { cspViolations: Violation[] }).cspViolations);

/**
 * The real server (startServer, as the process runs it) serving the freshly built client under its
 * Content-Security-Policy, in chromium: the page must work under the policy, and no other origin may
 * frame it. (The other browser tests get the same policy from serveApp.)
 */
describe("the web client under the server's security headers", { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let browser: Browser;
  let framer: Server | undefined;
  const pages: Page[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentwire-csp-"));
    const web = join(dir, "web");
    await buildApp(web);
    // The server finds the client here (its own copy of the run's build).
    process.env.WEB_DIST_DIR = web;
    const config = loadConfig({
      PORT: "0",
      DATABASE_PATH: join(dir, "agentwire.db"),
      WORKSPACE_ROOT: join(dir, "workspace"),
      AGENTWIRE_SCRIPTED_PROVIDER: provider,
      DEFAULT_PROVIDER: "scripted",
      LOG_LEVEL: "silent",
    });
    server = await startServer(config);
    browser = await launchBrowser();
  });

  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
    await new Promise((resolve) => (framer ? framer.close(resolve) : resolve(undefined)));
    framer = undefined;
  });

  afterAll(async () => {
    delete process.env.WEB_DIST_DIR;
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("runs the web client under the policy: it connects, streams a turn, and nothing is refused", async () => {
    const page = await browser.newPage();
    pages.push(page);
    const seen = await watchViolations(page);
    const response = await page.goto(`${server.url}/#/`);
    expect(response?.headers()["content-security-policy"]).toBe(contentSecurityPolicyHeader());
    const chat = new ChatPage(page);
    // The socket is ws:// to the page's own host and port: allowed by connect-src 'self'.
    await page.locator("output.conn-open").waitFor({ timeout: 15_000 });
    await chat.send("hello under csp");
    await chat.waitForText("you said: hello under csp");
    await chat.waitForIdle();
    expect(await violations(page)).toEqual([]);
    expect(seen.console).toEqual([]);

    // The policy is enforced and the watcher sees it: an inline style and an inline script are refused.
    await page.evaluate(() => {
      const style = document.createElement("style");
      style.textContent = "body { background: red; }";
      document.head.append(style);
      const script = document.createElement("script");
      script.textContent = "window.inlineRan = true;";
      document.head.append(script);
    });
    await page.waitForFunction(
      () => (window as unknown as { cspViolations: unknown[] }).cspViolations.length >= 2,
    );
    const refused = (await violations(page)).map((v) => v.directive).sort();
    expect(refused).toEqual(["script-src-elem", "style-src-elem"]);
    expect(
      await page.evaluate(() => (window as unknown as { inlineRan?: boolean }).inlineRan),
    ).toBeUndefined();
  });

  it("serves the favicon: the page's icon link and /favicon.ico answer, and no request of the page is a 404", async () => {
    const page = await browser.newPage();
    pages.push(page);
    const failed: string[] = [];
    page.on("response", (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${server.url}/#/`);
    await page.locator("output.conn-open").waitFor({ timeout: 15_000 });
    const icon = await page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href);
    expect(icon).toBe(`${server.url}/favicon.svg`);
    // What a browser asks for without a link (and what every load used to 404 on).
    for (const [path, type] of [
      ["/favicon.svg", "image/svg+xml"],
      ["/favicon.ico", "image/"],
    ] as const) {
      const res = await page.request.get(`${server.url}${path}`);
      expect(res.status()).toBe(200);
      expect(res.headers()["content-type"]).toContain(type);
      expect((await res.body()).length).toBeGreaterThan(100);
    }
    expect(failed).toEqual([]);
  });

  it("cannot be framed by a page on another origin", async () => {
    // Another origin (another port): one frame of agentwire, one of its own page as the control.
    framer = createServer((req, res) => {
      res.setHeader("content-type", "text/html; charset=utf-8");
      if (req.url === "/own") return res.end('<!doctype html><p id="own">framed fine</p>');
      res.end(
        `<!doctype html><iframe name="agentwire" src="${server.url}/"></iframe><iframe name="own" src="/own"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => framer?.listen(0, "127.0.0.1", resolve));
    const address = framer.address();
    const framerUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

    const page = await browser.newPage();
    pages.push(page);
    const refusal = page.waitForEvent("console", {
      predicate: (message) => message.text().includes("frame-ancestors 'none'"),
    });
    await page.goto(framerUrl, { waitUntil: "load" });
    expect((await refusal).text()).toMatch(
      new RegExp(
        `^Framing '${server.url}/' violates .*"frame-ancestors 'none'"\\. The request has been blocked`,
      ),
    );

    // The control frame shows its page; the agentwire frame shows nothing of the app.
    const own = page.frame({ name: "own" });
    expect(await own?.locator("#own").textContent()).toBe("framed fine");
    const framed = page.frame({ name: "agentwire" });
    expect(framed).toBeTruthy();
    expect(framed?.url()).not.toBe(`${server.url}/`);
    expect(await framed?.locator("#app").count()).toBe(0);
  });
});
