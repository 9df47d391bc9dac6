import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGuardedGet, createWebSearchTool } from "../../src/tools/builtin/index.js";
import { errorText, okOutput, runTool } from "./run-tool.js";

/** A stand-in backend: a real HTTP server; `reply` is swapped per test, every request is recorded. */
type StandIn = {
  url: string;
  port: number;
  requests: { url: string; headers: http.IncomingHttpHeaders }[];
  reply: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  close: () => Promise<void>;
};

async function standIn(): Promise<StandIn> {
  const state = {
    requests: [] as StandIn["requests"],
    reply: ((_req, res) => res.writeHead(500).end()) as StandIn["reply"],
  };
  const server = http.createServer((req, res) => {
    state.requests.push({ url: req.url ?? "", headers: req.headers });
    state.reply(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

const json =
  (body: unknown, status = 200) =>
  (_req: http.IncomingMessage, res: http.ServerResponse) =>
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));

/** A SearXNG `format=json` answer, with the fields a real instance sends beside the three we read. */
function searxngAnswer(query: string, n: number) {
  return {
    query,
    number_of_results: 0,
    results: Array.from({ length: n }, (_, i) => ({
      url: `https://example.org/page-${i}`,
      title: `Result ${i}`,
      content: `About ${query}, part ${i}.`,
      engine: "duckduckgo",
      parsed_url: ["https", "example.org", `/page-${i}`, "", "", ""],
      template: "default.html",
      engines: ["duckduckgo", "brave"],
      positions: [i + 1],
      score: 1 / (i + 1),
      category: "general",
      publishedDate: null,
      thumbnail: "",
    })),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: ["agentwire docs"],
    unresponsive_engines: [["google", "timeout"]],
  };
}

/** A Brave Web Search answer (`WebSearchApiResponse`): `web.results[]` with HTML-highlighted descriptions. */
function braveAnswer(n: number) {
  return {
    query: { original: "agentwire", more_results_available: true, spellcheck_off: true, country: "us" },
    mixed: { type: "mixed", main: [{ type: "web", index: 0, all: false }], top: [], side: [] },
    type: "search",
    web: {
      type: "search",
      family_friendly: true,
      results: Array.from({ length: n }, (_, i) => ({
        type: "search_result",
        subtype: "generic",
        title: `Agentwire &amp; friends ${i}`,
        url: `https://brave.example/r/${i}`,
        description: `The <strong>agentwire</strong> server&#x27;s page ${i}`,
        is_source_local: false,
        is_source_both: false,
        language: "en",
        family_friendly: true,
        profile: { name: "Example", url: `https://brave.example/r/${i}`, long_name: "brave.example" },
        meta_url: { scheme: "https", netloc: "brave.example", hostname: "brave.example", path: `› r › ${i}` },
        age: "2 days ago",
      })),
    },
  };
}

const KEY = "BSA-test-key-7f3c9e1d";
let backend: StandIn;
let other: StandIn;
beforeAll(async () => {
  backend = await standIn();
  other = await standIn();
});
afterEach(() => {
  backend.requests.length = 0;
  other.requests.length = 0;
});
afterAll(async () => {
  await backend.close();
  await other.close();
});

type Output = { backend: string; query: string; results: { title: string; url: string; snippet: string }[] };

describe("web_search on SearXNG", () => {
  const tool = () => createWebSearchTool({ backend: { backend: "searxng", url: backend.url } });

  it("asks <base>/search?q=…&format=json on the trusted (loopback) host and maps results, 5 by default", async () => {
    backend.reply = json(searxngAnswer("agentwire & co", 8));
    const out = okOutput<Output>(await runTool(tool(), { query: "agentwire & co" }));
    const asked = new URL(backend.requests[0]?.url ?? "", backend.url);
    expect(asked.pathname).toBe("/search");
    expect(asked.searchParams.get("q")).toBe("agentwire & co");
    expect(asked.searchParams.get("format")).toBe("json");
    expect(backend.requests[0]?.headers.accept).toBe("application/json");
    expect(out.backend).toBe("searxng");
    expect(out.results).toHaveLength(5);
    expect(out.results[0]).toEqual({
      title: "Result 0",
      url: "https://example.org/page-0",
      snippet: "About agentwire & co, part 0.",
    });
  });

  it("applies the limit and keeps a base path prefix", async () => {
    backend.reply = json(searxngAnswer("q", 8));
    const prefixed = createWebSearchTool({ backend: { backend: "searxng", url: `${backend.url}/searx` } });
    const out = okOutput<Output>(await runTool(prefixed, { query: "q", limit: 2 }));
    expect(out.results.map((r) => r.url)).toEqual([
      "https://example.org/page-0",
      "https://example.org/page-1",
    ]);
    expect(backend.requests[0]?.url).toMatch(/^\/searx\/search\?/);
  });

  it("cleans results: controls and bidi overrides out, lengths capped, non-http URLs and junk dropped", async () => {
    backend.reply = json({
      results: [
        { url: "javascript:alert(1)", title: "bad", content: "x" },
        { url: "https://ok.example/\u0000x", title: "nul in url", content: "x" },
        { title: "no url" },
        "not an object",
        { url: "https://ok.example/a", title: `Evil\u202Etxt.exe\nline\u0007`, content: "y".repeat(5000) },
        { url: "https://ok.example/b" },
      ],
    });
    const out = okOutput<Output>(await runTool(tool(), { query: "x" }));
    expect(out.results.map((r) => r.url)).toEqual(["https://ok.example/a", "https://ok.example/b"]);
    expect(out.results[0]?.title).toBe("Evil txt.exe line");
    expect(out.results[0]?.snippet).toHaveLength(1000);
    expect(out.results[0]?.snippet.endsWith("…")).toBe(true);
    // A result without a title is shown by its URL; plain-text backends keep `<` as written.
    expect(out.results[1]).toEqual({
      title: "https://ok.example/b",
      url: "https://ok.example/b",
      snippet: "",
    });
  });

  it("keeps `<` in plain text (SearXNG content is not HTML)", async () => {
    backend.reply = json({
      results: [{ url: "https://ok.example/", title: "x<y and 3<4", content: "a <b> c" }],
    });
    const out = okOutput<Output>(await runTool(tool(), { query: "x" }));
    expect(out.results[0]).toMatchObject({ title: "x<y and 3<4", snippet: "a <b> c" });
  });

  it("turns a backend failure into an error result the model can read", async () => {
    backend.reply = json({ error: "boom" }, 500);
    expect(errorText(await runTool(tool(), { query: "q" }))).toBe(
      "the search backend (searxng) answered HTTP 500",
    );
    backend.reply = (_req, res) =>
      res.writeHead(403, { "content-type": "text/html" }).end("<h1>Forbidden</h1>");
    expect(errorText(await runTool(tool(), { query: "q" }))).toMatch(/HTTP 403 .*search\.formats/);
    backend.reply = (_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<html>results</html>");
    expect(errorText(await runTool(tool(), { query: "q" }))).toBe(
      "the search backend (searxng) sent a response that is not JSON",
    );
    backend.reply = json({ answers: [] });
    expect(errorText(await runTool(tool(), { query: "q" }))).toMatch(
      /unexpected response: .*no results list/,
    );
  });

  it("does not extend the trust to where the backend redirects: that hop is SSRF-checked", async () => {
    backend.reply = (_req, res) => res.writeHead(302, { location: `${other.url}/search` }).end();
    const text = errorText(await runTool(tool(), { query: "q" }));
    expect(text).toMatch(/could not be reached: redirect to http:\/\/127\.0\.0\.1:\d+: refused/);
    expect(other.requests).toHaveLength(0);
  });

  it("reports an unreachable backend", async () => {
    const gone = await standIn();
    await gone.close();
    const down = createWebSearchTool({ backend: { backend: "searxng", url: gone.url } });
    expect(errorText(await runTool(down, { query: "q" }))).toMatch(
      /could not be reached: connection refused/,
    );
  });

  it("validates its arguments", async () => {
    for (const args of [{ query: "  " }, { query: "q", limit: 21 }, { query: "q", limit: 0 }, {}]) {
      expect(errorText(await runTool(tool(), args))).toMatch(/^invalid arguments for web_search/);
    }
    expect(backend.requests).toHaveLength(0);
  });
});

describe("web_search on the Brave Search API", () => {
  const tool = () => createWebSearchTool({ backend: { backend: "brave", apiKey: KEY, url: backend.url } });

  it("sends the key in X-Subscription-Token and count=limit, maps web.results, and never returns the key", async () => {
    backend.reply = json(braveAnswer(3));
    const outcome = await runTool(tool(), { query: "agentwire", limit: 3 });
    const out = okOutput<Output>(outcome);
    const asked = backend.requests[0];
    const url = new URL(asked?.url ?? "", backend.url);
    expect(url.pathname).toBe("/res/v1/web/search");
    expect(url.searchParams.get("q")).toBe("agentwire");
    expect(url.searchParams.get("count")).toBe("3");
    expect(url.search).not.toContain(KEY);
    expect(asked?.headers["x-subscription-token"]).toBe(KEY);
    expect(out.results).toEqual(
      [0, 1, 2].map((i) => ({
        title: `Agentwire & friends ${i}`,
        url: `https://brave.example/r/${i}`,
        snippet: `The agentwire server's page ${i}`,
      })),
    );
    expect(JSON.stringify(outcome)).not.toContain(KEY);
  });

  it("cuts to the limit even when the API sends more, and reads a missing `web` as no results", async () => {
    backend.reply = json(braveAnswer(9));
    expect(okOutput<Output>(await runTool(tool(), { query: "q", limit: 4 })).results).toHaveLength(4);
    backend.reply = json({ type: "search", query: { original: "zzzz" } });
    expect(okOutput<Output>(await runTool(tool(), { query: "zzzz" })).results).toEqual([]);
  });

  it("keeps the key out of errors, even when the API echoes it", async () => {
    backend.reply = json(
      {
        type: "ErrorResponse",
        error: { status: 401, code: "SUBSCRIPTION_TOKEN_INVALID", detail: `token ${KEY} is invalid` },
      },
      401,
    );
    const text = errorText(await runTool(tool(), { query: "q" }));
    expect(text).toBe("the search backend (brave) answered HTTP 401 (check the API key)");
    backend.reply = json({
      type: "search",
      web: { results: [{ url: `https://x.example/?k=${KEY}`, title: KEY }] },
    });
    const leaked = await runTool(tool(), { query: "q" });
    expect(JSON.stringify(leaked)).not.toContain(KEY);
    expect(okOutput<Output>(leaked).results[0]?.title).toBe("[redacted]");
    backend.reply = json({ type: "search", web: {} });
    expect(errorText(await runTool(tool(), { query: "q" }))).toMatch(/no web\.results list/);
  });
});

describe("the guarded client's extra headers", () => {
  it("go to the first origin only: a redirect to another origin is made without them", async () => {
    const get = createGuardedGet({ allowHosts: [`127.0.0.1:${backend.port}`, `127.0.0.1:${other.port}`] });
    backend.reply = (_req, res) => res.writeHead(302, { location: `${other.url}/next` }).end();
    other.reply = (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    const res = await get(`${backend.url}/start`, new AbortController().signal, "*/*", {
      "x-subscription-token": KEY,
    });
    expect(res.ok).toBe(true);
    expect(backend.requests[0]?.headers["x-subscription-token"]).toBe(KEY);
    expect(other.requests[0]?.url).toBe("/next");
    expect(other.requests[0]?.headers["x-subscription-token"]).toBeUndefined();
  });
});
