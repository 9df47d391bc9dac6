import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebFetchTool, type GuardedGetOptions, type Resolver } from "../../src/tools/builtin/index.js";
import type { NodeContext } from "../../src/workflows/node-type.js";
import { createHttpGetNode } from "../../src/workflows/nodes/http-get-node.js";
import { runTool } from "./run-tool.js";

// Every SSRF attack runs against both callers of the guarded client (web_fetch and the workflow node
// http.get): each must refuse it, with the same reason, without reaching the target.

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

const MAX_BYTES = 64 * 1024;
/** The internal service an attacker wants to reach: on loopback, not on the allow-list. */
let target: Server;
/** An allowed host the attacker controls: it redirects anywhere and sends oversized bodies. */
let evil: Server;

beforeAll(async () => {
  target = await startServer((_req, res) => res.end("internal secret"));
  evil = await startServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const to = url.searchParams.get("to");
    if (url.pathname === "/redirect" && to) res.writeHead(302, { location: to }).end();
    else if (url.pathname === "/loop") res.writeHead(302, { location: "/loop" }).end();
    else if (url.pathname === "/declared-big") res.writeHead(200).end(Buffer.alloc(MAX_BYTES + 1, 97));
    else if (url.pathname === "/streamed-big") {
      // No Content-Length: the reader must count and stop by itself.
      res.writeHead(200, { "content-type": "text/plain" });
      for (let i = 0; i < 4; i++) res.write(Buffer.alloc(MAX_BYTES / 2, 98));
      res.end();
    } else if (url.pathname === "/gzip-bomb") {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024, 97)));
    } else res.writeHead(404).end();
  });
});

afterAll(async () => {
  for (const s of [target, evil]) s.server.closeAllConnections();
  await Promise.all([target, evil].map((s) => new Promise((r) => s.server.close(r))));
});

const resolve: Resolver = async (hostname) => {
  const table: Record<string, string[]> = {
    "rebind.test": ["127.0.0.1"],
    "mixed.test": ["93.184.216.34", "127.0.0.1"],
    "intranet.test": ["10.0.0.7"],
    "metadata.test": ["169.254.169.254"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "v6-loopback.test": ["::1"],
  };
  const ips = table[hostname];
  if (!ips) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
  return ips.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

const options = (): GuardedGetOptions => ({
  allowHosts: [`127.0.0.1:${evil.port}`],
  resolve,
  maxBytes: MAX_BYTES,
  timeouts: { connectMs: 2000, totalMs: 5000 },
});

const ctx: NodeContext = {
  nodeId: "fetch",
  properties: {},
  input: { text: "" },
  progress: () => {},
  countLlmCall: () => true,
};

/** Each caller's refusal reason for `url`, or a description of what it did instead. */
const callers: Record<string, (url: string) => Promise<string>> = {
  web_fetch: async (url) => {
    const out = await runTool(createWebFetchTool(options()), { url });
    if (out.type === "result" && out.isError) return String(out.output);
    return `not refused: ${JSON.stringify(out).slice(0, 200)}`;
  },
  "http.get": async (url) => {
    const out = await createHttpGetNode(options()).process({ url }, ctx, new AbortController().signal);
    return out.ok ? `not refused: ${JSON.stringify(out).slice(0, 200)}` : out.error;
  },
};

type Attack = { name: string; url: () => string; reason: () => string };

const loopback = "127.0.0.1 is a loopback address";
const viaEvil = (to: () => string) => () =>
  `http://127.0.0.1:${evil.port}/redirect?to=${encodeURIComponent(to())}`;
const t = () => target.port;

const attacks: Attack[] = [
  // Private and special addresses as literals.
  {
    name: "private 10/8",
    url: () => "http://10.1.2.3/",
    reason: () => "refused: 10.1.2.3 is a private address",
  },
  {
    name: "private 192.168/16",
    url: () => "http://192.168.1.1/",
    reason: () => "refused: 192.168.1.1 is a private address",
  },
  {
    name: "private 172.16/12",
    url: () => "http://172.31.0.1/",
    reason: () => "refused: 172.31.0.1 is a private address",
  },
  { name: "loopback literal", url: () => `http://127.0.0.1:${t()}/`, reason: () => `refused: ${loopback}` },
  {
    name: "cloud metadata",
    url: () => "http://169.254.169.254/latest/meta-data/",
    reason: () => "refused: 169.254.169.254 is a link-local (cloud metadata) address",
  },
  {
    name: "IPv6 loopback",
    url: () => `http://[::1]:${t()}/`,
    reason: () => "refused: ::1 is a loopback address",
  },
  // Other spellings of loopback, normalised by the URL parser, then checked.
  { name: "decimal IPv4", url: () => `http://2130706433:${t()}/`, reason: () => `refused: ${loopback}` },
  { name: "octal IPv4", url: () => `http://0177.0.0.1:${t()}/`, reason: () => `refused: ${loopback}` },
  { name: "hex IPv4", url: () => `http://0x7f.1:${t()}/`, reason: () => `refused: ${loopback}` },
  {
    name: "IPv4-mapped IPv6 loopback",
    url: () => `http://[::ffff:127.0.0.1]:${t()}/`,
    reason: () => "refused: ::ffff:7f00:1 is an IPv4-mapped address",
  },
  {
    name: "IPv4-mapped IPv6 metadata",
    url: () => "http://[::ffff:169.254.169.254]/",
    reason: () => "refused: ::ffff:a9fe:a9fe is an IPv4-mapped address",
  },
  // Names that resolve to blocked addresses, checked at connect time.
  {
    name: "DNS name resolving to loopback",
    url: () => `http://rebind.test:${t()}/`,
    reason: () => `refused: rebind.test resolves to a blocked address: ${loopback}`,
  },
  {
    name: "DNS name with one public and one loopback address",
    url: () => `http://mixed.test:${t()}/`,
    reason: () => `refused: mixed.test resolves to a blocked address: ${loopback}`,
  },
  {
    name: "DNS name resolving to a private address",
    url: () => "http://intranet.test/",
    reason: () => "refused: intranet.test resolves to a blocked address: 10.0.0.7 is a private address",
  },
  {
    name: "DNS name resolving to an IPv4-mapped loopback",
    url: () => `http://mapped.test:${t()}/`,
    reason: () =>
      "refused: mapped.test resolves to a blocked address: ::ffff:127.0.0.1 is an IPv4-mapped address",
  },
  {
    name: "DNS name resolving to IPv6 loopback",
    url: () => `http://v6-loopback.test:${t()}/`,
    reason: () => "refused: v6-loopback.test resolves to a blocked address: ::1 is a loopback address",
  },
  // An allowed host redirecting to a blocked one: every hop is checked again.
  {
    name: "redirect to 127.0.0.1",
    url: viaEvil(() => `http://127.0.0.1:${t()}/`),
    reason: () => `redirect to http://127.0.0.1:${t()}: refused: ${loopback}`,
  },
  {
    name: "redirect to cloud metadata",
    url: viaEvil(() => "http://169.254.169.254/latest/meta-data/"),
    reason: () =>
      "redirect to http://169.254.169.254: refused: 169.254.169.254 is a link-local (cloud metadata) address",
  },
  {
    name: "redirect to decimal loopback",
    url: viaEvil(() => `http://2130706433:${t()}/`),
    reason: () => `redirect to http://127.0.0.1:${t()}: refused: ${loopback}`,
  },
  {
    name: "redirect to a name resolving to loopback",
    url: viaEvil(() => `http://rebind.test:${t()}/`),
    reason: () =>
      `redirect to http://rebind.test:${t()}: refused: rebind.test resolves to a blocked address: ${loopback}`,
  },
  {
    name: "redirect to file:",
    url: viaEvil(() => "file:///etc/passwd"),
    reason: () => "redirect to a file: URL: only http and https URLs are allowed (got file:)",
  },
  {
    name: "redirect with credentials (never echoed)",
    url: viaEvil(() => `http://admin:hunter2@127.0.0.1:${evil.port}/`),
    reason: () =>
      `redirect to http://127.0.0.1:${evil.port}: URLs with credentials (user:pass@) are not allowed`,
  },
  {
    name: "redirect loop",
    url: () => `http://127.0.0.1:${evil.port}/loop`,
    reason: () => "too many redirects (more than 5)",
  },
  // Oversized bodies stop at the cap: declared, streamed, and decompressed.
  {
    name: "declared oversized body",
    url: () => `http://127.0.0.1:${evil.port}/declared-big`,
    reason: () => `response body exceeds ${MAX_BYTES} bytes`,
  },
  {
    name: "streamed oversized body",
    url: () => `http://127.0.0.1:${evil.port}/streamed-big`,
    reason: () => `response body exceeds ${MAX_BYTES} bytes`,
  },
  {
    name: "gzip bomb",
    url: () => `http://127.0.0.1:${evil.port}/gzip-bomb`,
    reason: () => `response body exceeds ${MAX_BYTES} bytes`,
  },
];

describe("one guarded client: every SSRF attack is refused identically by web_fetch and http.get", () => {
  for (const attack of attacks) {
    for (const [caller, fetchWith] of Object.entries(callers)) {
      it(`${caller}: ${attack.name}`, async () => {
        const before = target.hits.length;
        expect(await fetchWith(attack.url())).toBe(attack.reason());
        expect(target.hits.length).toBe(before);
      });
    }
  }

  it("both reach an allowed host (the table's refusals are not a broken client)", async () => {
    const ok = `http://127.0.0.1:${evil.port}/redirect?to=${encodeURIComponent("/nowhere")}`;
    expect(await callers.web_fetch?.(ok)).toMatch(/^HTTP 404 from http:\/\/127\.0\.0\.1:\d+/);
    expect(await callers["http.get"]?.(ok)).toBe(`HTTP 404 from 127.0.0.1:${evil.port}`);
  });
});
