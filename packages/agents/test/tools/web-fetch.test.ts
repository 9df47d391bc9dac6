import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  classifyAddress,
  createWebFetchTool,
  htmlToText,
  type Resolver,
} from "../../src/tools/builtin/index.js";
import { errorText, okOutput, runTool } from "./run-tool.js";

type Server = { server: http.Server; port: number; hits: string[] };

async function startServer(handler: http.RequestListener): Promise<Server> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

let allowed: Server;
let forbidden: Server;
const PAGE = `<!doctype html><html><head><title>Hi &amp; welcome</title><style>body{color:red}</style>
<script>alert("x<y")</script></head><body><h1>Heading</h1><p>One&nbsp;para &#8212; &#x263A;</p>
<!-- secret comment --><ul><li>a</li><li>b</li></ul><noscript>no</noscript></body></html>`;

beforeAll(async () => {
  forbidden = await startServer((_req, res) => res.end("internal secret"));
  allowed = await startServer((req, res) => {
    const url = req.url ?? "/";
    const loop = /^\/loop\/(\d+)$/.exec(url);
    if (loop) {
      const n = Number(loop[1]);
      res.writeHead(302, { location: n >= 5 ? "/text" : `/loop/${n + 1}` }).end();
    } else if (url === "/loop-forever") res.writeHead(302, { location: "/loop-forever" }).end();
    else if (url === "/html") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    else if (url === "/text") res.writeHead(200, { "content-type": "text/plain" }).end("plain text");
    else if (url === "/gzip")
      res
        .writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
        .end(zlib.gzipSync("zipped"));
    else if (url === "/bomb") {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 97)));
    } else if (url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(Buffer.alloc(3 * 1024 * 1024, 97));
    } else if (url === "/big-chunked") {
      res.writeHead(200, { "content-type": "text/plain" });
      for (let i = 0; i < 48; i++) res.write(Buffer.alloc(64 * 1024, 98));
      res.end();
    } else if (url === "/png")
      res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0, 1]));
    else if (url === "/missing") res.writeHead(404, { "content-type": "text/plain" }).end("nope");
    else if (url === "/to-loopback")
      res.writeHead(302, { location: `http://127.0.0.1:${forbidden.port}/` }).end();
    else if (url === "/to-localhost-name")
      res.writeHead(301, { location: `http://localhost:${forbidden.port}/` }).end();
    else if (url === "/to-metadata")
      res.writeHead(307, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    else if (url === "/to-ftp") res.writeHead(302, { location: "ftp://example.com/file" }).end();
    else if (url === "/to-creds")
      res.writeHead(302, { location: `http://u:p@127.0.0.1:${allowed.port}/text` }).end();
    else if (url === "/hang") res.writeHead(200, { "content-type": "text/plain" }).write("partial");
    else res.writeHead(404).end();
  });
});

afterAll(async () => {
  allowed.server.closeAllConnections();
  forbidden.server.closeAllConnections();
  await Promise.all([allowed, forbidden].map((s) => new Promise((r) => s.server.close(r))));
});

/** A resolver for tests: fixed answers, and a record of every name looked up. */
function fakeResolver(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const fn = async (hostname: string) => {
    asked.push(hostname);
    const ips = table[hostname];
    if (!ips) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return ips.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(fn, { asked });
}

function tool(opts: { resolve?: Resolver; totalMs?: number; allowHosts?: string[] } = {}) {
  return createWebFetchTool({
    allowHosts: opts.allowHosts ?? [`127.0.0.1:${allowed.port}`],
    resolve: opts.resolve ?? fakeResolver({ localhost: ["127.0.0.1"], "allowed.test": ["127.0.0.1"] }),
    timeouts: { connectMs: 2000, totalMs: opts.totalMs ?? 5000 },
  });
}

const base = () => `http://127.0.0.1:${allowed.port}`;

describe("web_fetch: declarations and happy path", () => {
  it("is a parallel-safe network tool", () => {
    const t = tool();
    expect(t.permissionClass).toBe("network");
    expect(t.parallelSafe).toBe(true);
  });

  it("fetches an allowed host and reduces HTML to text", async () => {
    const out = okOutput<{ text: string; status: number }>(await runTool(tool(), { url: `${base()}/html` }));
    expect(out.status).toBe(200);
    expect(out.text).toBe("Hi & welcome\n\nHeading\n\nOne para — ☺\n\n- a\n- b");
  });

  it("allows a host by name (host:port) and follows up to 5 redirects", async () => {
    const t = tool({ allowHosts: [`allowed.test:${allowed.port}`, `127.0.0.1:${allowed.port}`] });
    expect(okOutput(await runTool(t, { url: `http://allowed.test:${allowed.port}/text` }))).toMatchObject({
      text: "plain text",
    });
    expect(okOutput(await runTool(t, { url: `${base()}/loop/1` }))).toMatchObject({
      text: "plain text",
      url: `${base()}/text`,
    });
  });

  it("decompresses gzip", async () => {
    expect(okOutput(await runTool(tool(), { url: `${base()}/gzip` }))).toMatchObject({ text: "zipped" });
  });

  it("reports HTTP errors and binary content as errors", async () => {
    expect(errorText(await runTool(tool(), { url: `${base()}/missing` }))).toMatch(/HTTP 404/);
    expect(errorText(await runTool(tool(), { url: `${base()}/png` }))).toMatch(
      /unsupported content type image\/png/,
    );
  });
});

describe("web_fetch: SSRF attacks", () => {
  const literalAttacks: [string, RegExp][] = [
    ["http://169.254.169.254/latest/meta-data/", /link-local/],
    ["http://[::ffff:127.0.0.1]/", /IPv4-mapped/],
    ["http://[::1]/", /loopback/],
    ["http://0.0.0.0/", /unspecified/],
    ["http://2130706433/", /127\.0\.0\.1 is a loopback/],
    ["http://0x7f.1/", /127\.0\.0\.1 is a loopback/],
    ["http://0177.0.0.1/", /loopback/],
    ["http://10.1.2.3/", /private/],
    ["http://192.168.1.1/", /private/],
    ["http://172.31.0.1/", /private/],
    ["http://100.64.0.1/", /carrier-grade NAT/],
    ["http://224.0.0.1/", /multicast/],
    ["http://255.255.255.255/", /reserved\/broadcast/],
    ["http://[fd00::1]/", /unique local/],
    ["http://[fe80::1]/", /link-local/],
    ["http://[::]/", /unspecified/],
    ["http://[::7f00:1]/", /IPv4-compatible/],
    ["http://[64:ff9b::a00:1]/", /NAT64/],
    ["http://[ff02::1]/", /multicast/],
  ];
  for (const [url, reason] of literalAttacks) {
    it(`refuses ${url}`, async () => {
      const resolve = fakeResolver({});
      expect(errorText(await runTool(tool({ resolve }), { url }))).toMatch(reason);
    });
  }

  it("refuses a loopback server that is not on the allowlist, without connecting", async () => {
    const before = forbidden.hits.length;
    expect(errorText(await runTool(tool(), { url: `http://127.0.0.1:${forbidden.port}/` }))).toMatch(
      /loopback/,
    );
    expect(forbidden.hits.length).toBe(before);
  });

  it("refuses a hostname that resolves to a private address, checked at connect time", async () => {
    const resolve = fakeResolver({
      "intranet.example": ["10.0.0.1"],
      "mixed.example": ["93.184.216.34", "127.0.0.1"],
    });
    expect(errorText(await runTool(tool({ resolve }), { url: "http://intranet.example/" }))).toMatch(
      /intranet\.example resolves to a blocked address: 10\.0\.0\.1 is a private address/,
    );
    expect(errorText(await runTool(tool({ resolve }), { url: "https://mixed.example/" }))).toMatch(
      /127\.0\.0\.1 is a loopback/,
    );
    expect(resolve.asked).toEqual(["intranet.example", "mixed.example"]);
  });

  it("refuses redirects from an allowed host to loopback, a loopback name, metadata, ftp and credentials", async () => {
    const before = forbidden.hits.length;
    expect(errorText(await runTool(tool(), { url: `${base()}/to-loopback` }))).toMatch(
      /redirect to .* refused: .*loopback/,
    );
    expect(errorText(await runTool(tool(), { url: `${base()}/to-localhost-name` }))).toMatch(
      /localhost resolves to a blocked address/,
    );
    expect(errorText(await runTool(tool(), { url: `${base()}/to-metadata` }))).toMatch(
      /169\.254\.169\.254 is a link-local/,
    );
    expect(errorText(await runTool(tool(), { url: `${base()}/to-ftp` }))).toMatch(/only http and https/);
    expect(errorText(await runTool(tool(), { url: `${base()}/to-creds` }))).toMatch(/credentials/);
    expect(forbidden.hits.length).toBe(before);
  });

  it("refuses more than 5 redirects", async () => {
    expect(errorText(await runTool(tool(), { url: `${base()}/loop-forever` }))).toMatch(
      /too many redirects \(more than 5\)/,
    );
  });

  it("refuses non-http schemes and credentials", async () => {
    for (const url of [
      "ftp://example.com/",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "data:text/plain,hi",
      "gopher://x/",
    ]) {
      expect(errorText(await runTool(tool(), { url }))).toMatch(/only http and https/);
    }
    expect(errorText(await runTool(tool(), { url: "http://user:pass@example.com/" }))).toMatch(/credentials/);
    expect(errorText(await runTool(tool(), { url: "not a url" }))).toMatch(/not a valid absolute URL/);
  });

  it("refuses a body over the cap: declared, streamed, and a gzip bomb", async () => {
    expect(errorText(await runTool(tool(), { url: `${base()}/big` }))).toMatch(/exceeds 2097152 bytes/);
    expect(errorText(await runTool(tool(), { url: `${base()}/big-chunked` }))).toMatch(
      /exceeds 2097152 bytes/,
    );
    expect(errorText(await runTool(tool(), { url: `${base()}/bomb` }))).toMatch(/exceeds 2097152 bytes/);
  });

  it("gives up after the total timeout", async () => {
    expect(errorText(await runTool(tool({ totalMs: 300 }), { url: `${base()}/hang` }))).toMatch(
      /timed out after 300 ms/,
    );
  });
});

describe("ssrf-guard and html-to-text units", () => {
  it("allows public addresses", () => {
    for (const ip of ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "[2a00:1450::1]"]) {
      expect(classifyAddress(ip)).toEqual({ allowed: true });
    }
    expect(classifyAddress("fe80::1%eth0").allowed).toBe(false);
    expect(classifyAddress("example.com").allowed).toBe(false);
  });

  it("stays linear on hostile markup and caps its output", () => {
    const hostile = "<".repeat(200_000) + "<script".repeat(50_000);
    const started = performance.now();
    htmlToText(hostile);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(htmlToText("a < b and 1<3 <b>bold</b>").text).toBe("a < b and 1<3 bold");
    expect(htmlToText(`<p>${"x".repeat(500)}</p>`, 100)).toEqual({
      text: "x".repeat(100),
      truncated: true,
    });
    expect(htmlToText("&#0; &#xD800; &bogus; &LT;").text).toBe("\uFFFD \uFFFD &bogus; <");
  });
});
