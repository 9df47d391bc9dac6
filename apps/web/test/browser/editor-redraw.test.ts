import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { launchBrowser } from "@agentwire-chat/testkit/launch-browser";
import {
  type RouteTestServer,
  startRouteServer,
  translateGraph,
} from "@agentwire-chat/testkit/route-harness";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatPage } from "./chat-page.js";
import { buildApp, serveApp } from "./serve-app.js";

const fence = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;

/** The agent calls build_workflow (never ui_show_graph); its planner answers the translator graph. */
const agent = (request: ProviderRequest): ScriptedStep => {
  if (request.tools.length === 0) return { text: fence(translateGraph) };
  if (request.messages.at(-1)?.role === "tool") return { text: "Your workflow is saved." };
  return {
    toolCalls: [{ id: "call_bw", name: "build_workflow", args: { objective: "Translate to French" } }],
  };
};

/** The editor page draws what was saved: build_workflow's graph, and a later PUT's, with no UI tool call. */
describe("the web editor redraws from workflow_updated", { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: RouteTestServer;
  let workspace: string;
  let dist: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agentwire-web-editor-"));
    dist = join(workspace, "dist");
    await buildApp(dist);
    server = await startRouteServer(agent, { allowedOrigins: ["*"] });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("shows the graph build_workflow saved, then the one a PUT saved", async () => {
    await server.repos.users.ensure("local");
    const saved = await server.repos.workflows.create("local", "Draft", { nodes: [], edges: [] });
    const page = await browser.newPage();
    await serveApp(page, server.httpUrl, dist);
    const chat = new ChatPage(page);
    await chat.open(server.httpUrl, "#/editor");
    const idBox = page.getByLabel("Workflow id");
    await idBox.fill(saved.id);
    await idBox.press("Tab");
    const graph = page.getByRole("figure", { name: "Workflow graph" });
    expect(await graph.count()).toBe(0);

    await chat.send("Build me a translator");
    await chat.waitForText("Your workflow is saved.");
    await graph.getByText("llm.prompt", { exact: true }).waitFor();
    expect(await graph.locator(".graph-node strong").allTextContents()).toEqual([
      "input.text",
      "llm.prompt",
      "output.text",
    ]);
    expect(await graph.locator(".graph-edges li").allTextContents()).toEqual([
      "input.text → llm.prompt",
      "llm.prompt → output.text",
    ]);

    // Saved from elsewhere (another tab, a script): the open editor follows without a turn.
    const direct = {
      nodes: [
        { id: "in", type: "input.text", properties: {} },
        { id: "out", type: "output.text", properties: {} },
      ],
      edges: [{ source: "in", source_port: "text", target: "out", target_port: "text" }],
    };
    const put = await server.fetch(`/api/workflows/${saved.id}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ graph: direct }),
    });
    expect(put.status).toBe(200);
    await page.waitForFunction(
      () => document.querySelectorAll('figure[aria-label="Workflow graph"] .graph-node').length === 2,
      undefined,
      { timeout: 15_000, polling: 50 },
    );
    expect(await graph.locator(".graph-edges li").allTextContents()).toEqual(["input.text → output.text"]);
    await page.close();
  });
});
