import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GuardedGetOptions } from "../../src/tools/builtin/web/guarded-get.js";
import type { NodeContext } from "../../src/workflows/node-type.js";
import { createHttpGetNode } from "../../src/workflows/nodes/http-get-node.js";

let server: Server;
let port = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/json") {
      res.setHeader("content-type", "application/json");
      res.end('{"ok":true}');
    } else if (req.url === "/to-literal") {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/json` });
      res.end();
    } else if (req.url === "/big") {
      res.end("x".repeat(5000));
    } else {
      res.writeHead(404);
      res.end("missing");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const ctx: NodeContext = {
  nodeId: "h",
  properties: {},
  input: { text: "" },
  progress: () => {},
  countLlmCall: () => true,
};
const get = (url: string, options: GuardedGetOptions = {}) =>
  createHttpGetNode(options).process({ url }, ctx, new AbortController().signal);
const localhost = { resolve: async () => [{ address: "127.0.0.1", family: 4 as const }] };

describe("http.get", () => {
  it("fetches from a host on the SSRF guard's allow-list", async () => {
    expect(await get(`http://127.0.0.1:${port}/json`, { allowHosts: ["127.0.0.1"] })).toEqual({
      ok: true,
      outputs: { body: '{"ok":true}', status: 200, content_type: "application/json" },
    });
  });

  it("refuses loopback otherwise, as an IP literal or through DNS", async () => {
    expect(await get(`http://127.0.0.1:${port}/json`)).toEqual({
      ok: false,
      error: "refused: 127.0.0.1 is a loopback address",
    });
    expect(await get(`http://localhost:${port}/json`, localhost)).toEqual({
      ok: false,
      error: "refused: localhost resolves to a blocked address: 127.0.0.1 is a loopback address",
    });
  });

  it("re-checks every redirect hop", async () => {
    const res = await get(`http://localhost:${port}/to-literal`, { ...localhost, allowHosts: ["localhost"] });
    expect(res).toEqual({
      ok: false,
      error: `redirect to http://127.0.0.1:${port}: refused: 127.0.0.1 is a loopback address`,
    });
  });

  it("fails on non-2xx, oversized bodies and bad URLs", async () => {
    const allow = { allowHosts: ["127.0.0.1"] };
    expect(await get(`http://127.0.0.1:${port}/nope`, allow)).toEqual({
      ok: false,
      error: `HTTP 404 from 127.0.0.1:${port}`,
    });
    expect(await get(`http://127.0.0.1:${port}/big`, { ...allow, maxBytes: 1000 })).toEqual({
      ok: false,
      error: "response body exceeds 1000 bytes",
    });
    expect(await get("file:///etc/passwd")).toEqual({
      ok: false,
      error: "only http and https URLs are allowed (got file:)",
    });
    expect(await get("not a url")).toEqual({ ok: false, error: "not a valid absolute URL" });
  });
});
