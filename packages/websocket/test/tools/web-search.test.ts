import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Tool } from "@agentwire-chat/agents";
import type { Repositories } from "@agentwire-chat/storage";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type BuiltinServerToolsOptions,
  createBuiltinServerTools,
  resolveToolPolicy,
  type ToolPolicyConfig,
} from "../../src/index.js";
import { injectedModel, injectedTurn, tempDir, toolEnds } from "./tool-helpers.js";

const KEY = "BSA-socket-test-key-0c41b7";

/** A Brave Search API stand-in on loopback: real HTTP, the real response shape, every request recorded. */
async function braveStandIn() {
  const requests: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.headers);
    const q = new URL(req.url ?? "/", "http://x").searchParams.get("q");
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        type: "search",
        query: { original: q },
        web: {
          type: "search",
          results: [
            {
              type: "search_result",
              title: "Agentwire",
              url: "https://agentwire.example/",
              description: `All about <strong>${q}</strong>`,
            },
          ],
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let dir: ReturnType<typeof tempDir>;
let brave: Awaited<ReturnType<typeof braveStandIn>>;
let server: ChatTestServer | undefined;
beforeEach(async () => {
  dir = tempDir("agentwire-web-search-");
  brave = await braveStandIn();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await brave.close();
  dir.remove();
});

/** A chat server whose built-in tools are the production ones, with `extra` options (web_search's). */
async function start(extra: Partial<BuiltinServerToolsOptions>, policy: Partial<ToolPolicyConfig> = {}) {
  const started = await startChatServer(injectedModel(), {
    auth: "token",
    logLevel: "trace",
    policy,
    serverTools: (scope) =>
      createBuiltinServerTools({
        repos: started.repos as Repositories,
        workspaceRoot: join(dir.path, "ws"),
        policyFor: () => resolveToolPolicy(policy),
        ...extra,
      })(scope),
  });
  server = started;
  return started;
}

const offered = (s: ChatTestServer) =>
  (s.provider.requests.at(-1)?.tools ?? []).map((t: { name: string }) => t.name);

describe("web_search through a turn", () => {
  it("runs against the configured backend; the key goes only to the backend, never to frames, prompts or logs", async () => {
    const s = await start({ webSearch: { backend: { backend: "brave", apiKey: KEY, url: brave.url } } });
    const alice = await s.connect({ token: await s.createToken("alice") });
    const frames = await injectedTurn(alice, [
      { name: "web_search", args: { query: "websockets", limit: 3 } },
    ]);
    expectWellFormedTurn(frames);
    const [end] = toolEnds(frames);
    expect(end).toMatchObject({ name: "web_search" });
    expect(end?.is_error ?? false).toBe(false);
    expect(JSON.stringify(end?.result)).toContain("All about websockets");
    expect(brave.requests).toHaveLength(1);
    expect(brave.requests[0]?.["x-subscription-token"]).toBe(KEY);
    expect(s.provider.requests[0]?.tools.map((t: { name: string }) => t.name)).toContain("web_search");
    // The tool result reached the model (the second call's messages) without the key.
    expect(JSON.stringify(s.provider.requests.at(-1)?.messages)).toContain("https://agentwire.example/");
    expect(JSON.stringify(s.provider.requests)).not.toContain(KEY);
    expect(JSON.stringify(frames)).not.toContain(KEY);
    expect(s.logs.length).toBeGreaterThan(0);
    expect(s.logs.join("")).not.toContain(KEY);
  });

  it("a backend failure is an error result and the turn goes on", async () => {
    await brave.close();
    const s = await start({ webSearch: { backend: { backend: "brave", apiKey: KEY, url: brave.url } } });
    brave = await braveStandIn(); // afterEach closes this one
    const alice = await s.connect({ token: await s.createToken("alice") });
    const frames = await injectedTurn(alice, [{ name: "web_search", args: { query: "q" } }]);
    expectWellFormedTurn(frames);
    expect(toolEnds(frames)[0]).toMatchObject({ name: "web_search", is_error: true });
    expect(String(toolEnds(frames)[0]?.result)).toMatch(/search backend \(brave\) could not be reached/);
    // The model got the error and answered: the turn ended normally.
    expect(s.provider.requests).toHaveLength(2);
    expect(JSON.stringify(frames)).not.toContain(KEY);
  });

  it("unconfigured: not in the toolbelt, and a call by name is an unknown tool", async () => {
    const s = await start({});
    const alice = await s.connect({ token: await s.createToken("alice") });
    const frames = await injectedTurn(alice, [{ name: "web_search", args: { query: "q" } }]);
    expect(offered(s)).toContain("web_fetch");
    expect(s.provider.requests[0]?.tools.map((t: { name: string }) => t.name)).not.toContain("web_search");
    expect(toolEnds(frames)[0]).toMatchObject({ name: "web_search", is_error: true });
    expect(brave.requests).toHaveLength(0);
  });

  it("TOOL_NETWORK=off leaves a configured web_search out, like web_fetch", async () => {
    const s = await start(
      { webSearch: { backend: { backend: "searxng", url: brave.url } } },
      { network: "off" },
    );
    const alice = await s.connect({ token: await s.createToken("alice") });
    await injectedTurn(alice, []);
    expect(offered(s)).not.toContain("web_search");
    expect(offered(s)).not.toContain("web_fetch");
  });
});

describe("createBuiltinServerTools and web_search", () => {
  it("adds web_search only when a backend is configured", async () => {
    const scope = {
      userId: "alice",
      threadId: "t",
      chatContext: { kind: "thread" as const },
      connectionId: "c",
    };
    const base = {
      repos: { memories: {} } as never,
      workspaceRoot: join(dir.path, "ws"),
      policyFor: () => resolveToolPolicy({}),
    };
    const names = (tools: Tool[]) => tools.map((t) => t.name);
    expect(names(await createBuiltinServerTools(base)(scope))).not.toContain("web_search");
    const configured = await createBuiltinServerTools({
      ...base,
      webSearch: { backend: { backend: "searxng", url: "http://search.internal:8080" } },
    })(scope);
    const tool = configured.find((t) => t.name === "web_search");
    expect(tool?.permissionClass).toBe("network");
    expect(tool?.description).toContain("searxng");
  });
});
