import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@agentwire-chat/testkit/free-port";
import { createLogger, hashApiToken } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";
import { type RunningServer, startServer } from "../src/start-server.js";

const METRICS_TOKEN = "metrics-secret-0123456789";
const ALICE_TOKEN = "alice-static-token-0123456789";
const STORED_TOKEN = "aw_stored-token-for-bob-0123456789";

let server: RunningServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

/** The real server with `env`; every log line is kept (to check no token reaches one). */
async function start(env: Record<string, string>) {
  dir = mkdtempSync(join(tmpdir(), "agentwire-metrics-"));
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", destination: { write: (line: string) => lines.push(line) } });
  const config = loadConfig({ PORT: "0", DATABASE_PATH: join(dir, "agentwire.db"), ...env });
  server = await startServer(config, { logger });
  return { server, lines };
}

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** A GET through node:http, which (unlike fetch) sends whatever Host header it is given. */
function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function expectUnauthorized(answer: Answer) {
  expect(answer.status).toBe(401);
  expect(answer.headers["www-authenticate"]).toBe('Bearer realm="agentwire"');
  expect(JSON.parse(answer.body)).toEqual({
    code: "unauthorized",
    message: "a valid metrics or API token is required",
  });
  expect(answer.body).not.toContain("agentwire_");
}

function expectMetrics(answer: Answer) {
  expect(answer.status).toBe(200);
  expect(answer.headers["content-type"]).toContain("text/plain");
  expect(answer.body).toContain("agentwire_open_sockets");
}

describe("/metrics with AUTH_MODE=token", () => {
  it("refuses a scrape without a valid token; METRICS_TOKEN, a static and a stored API token read it", async () => {
    const { server, lines } = await start({
      AUTH_MODE: "token",
      AUTH_TOKENS: `alice:${ALICE_TOKEN}`,
      METRICS_TOKEN,
    });
    await server.storage.repos.users.ensure("bob");
    const storedId = await server.storage.repos.apiTokens.create("bob", hashApiToken(STORED_TOKEN));
    const url = `${server.url}/metrics`;

    expectUnauthorized(await get(url));
    expectUnauthorized(await get(url, bearer("wrong-token-0123456789")));
    expectUnauthorized(await get(url, bearer(`${METRICS_TOKEN}x`)));
    expectUnauthorized(await get(url, { authorization: `Basic ${METRICS_TOKEN}` }));
    // The header only: a token in the URL would sit in scrape configs and proxy logs.
    expectUnauthorized(await get(`${url}?api_key=${METRICS_TOKEN}`));

    expectMetrics(await get(url, bearer(METRICS_TOKEN)));
    expectMetrics(await get(url, bearer(ALICE_TOKEN)));
    expectMetrics(await get(url, bearer(STORED_TOKEN)));
    await server.storage.repos.apiTokens.revoke(storedId);
    expectUnauthorized(await get(url, bearer(STORED_TOKEN)));

    const log = lines.join("");
    expect(log).toContain("metrics scrape refused");
    for (const secret of [METRICS_TOKEN, ALICE_TOKEN, STORED_TOKEN]) expect(log).not.toContain(secret);
  });

  it("without METRICS_TOKEN, API tokens still read it and nothing else does", async () => {
    const { server } = await start({ AUTH_MODE: "token", AUTH_TOKENS: `alice:${ALICE_TOKEN}` });
    const url = `${server.url}/metrics`;
    expectUnauthorized(await get(url));
    expectUnauthorized(await get(url, bearer(METRICS_TOKEN)));
    expectMetrics(await get(url, bearer(ALICE_TOKEN)));
  });
});

describe("/metrics with AUTH_MODE=none", () => {
  it("is open on loopback, like the rest of the server", async () => {
    const { server } = await start({});
    expectMetrics(await get(`${server.url}/metrics`));
  });

  it("asks for METRICS_TOKEN when it is set", async () => {
    const { server } = await start({ METRICS_TOKEN });
    const url = `${server.url}/metrics`;
    expectUnauthorized(await get(url));
    expectUnauthorized(await get(url, bearer("wrong-token-0123456789")));
    expectMetrics(await get(url, bearer(METRICS_TOKEN)));
  });
});

describe("/metrics on METRICS_PORT", () => {
  it("is served only on the loopback listener, not on the main port, and only to loopback Host names", async () => {
    const port = await freePort();
    const { server } = await start({
      AUTH_MODE: "token",
      AUTH_TOKENS: `alice:${ALICE_TOKEN}`,
      METRICS_PORT: String(port),
    });
    expect(server.metricsUrl).toBe(`http://127.0.0.1:${port}`);
    // Not on the main port, not even with a valid token.
    expect((await get(`${server.url}/metrics`, bearer(ALICE_TOKEN))).status).toBe(404);
    expectMetrics(await get(`${server.metricsUrl}/metrics`));
    expectMetrics(await get(`${server.metricsUrl}/metrics`, { host: `localhost:${port}` }));
    // DNS rebinding: a page whose name resolves to 127.0.0.1 would be same-origin with this port.
    const rebound = await get(`${server.metricsUrl}/metrics`, { host: `rebind.evil.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain("agentwire_");
    // The listener serves /metrics and nothing else.
    expect((await get(`${server.metricsUrl}/api/threads`)).status).toBe(404);
  });

  it("asks for METRICS_TOKEN there when it is set", async () => {
    const { server } = await start({ METRICS_PORT: "0", METRICS_TOKEN });
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expectUnauthorized(await get(`${server.metricsUrl}/metrics`));
    expectMetrics(await get(`${server.metricsUrl}/metrics`, bearer(METRICS_TOKEN)));
  });

  it("closes the loopback listener with the server", async () => {
    const { server } = await start({ METRICS_PORT: "0" });
    const url = `${server.metricsUrl}/metrics`;
    expectMetrics(await get(url));
    await server.close();
    await expect(get(url)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("metrics settings", () => {
  it("refuses a short METRICS_TOKEN without echoing it, and METRICS_PORT equal to PORT", () => {
    const load = (env: Record<string, string>) => () => loadConfig(env);
    expect(load({ METRICS_TOKEN: "short-secret" })).toThrow(ConfigError);
    expect(load({ METRICS_TOKEN: "short-secret" })).toThrow(/METRICS_TOKEN: must be 16 to 512 characters/);
    expect(load({ METRICS_TOKEN: "short-secret" })).not.toThrow(/short-secret/);
    expect(load({ PORT: "9000", METRICS_PORT: "9000" })).toThrow(/METRICS_PORT: must differ from PORT/);
    const config = loadConfig({ METRICS_TOKEN, METRICS_PORT: "9464" });
    expect(config.metrics).toEqual({ tokenHash: hashApiToken(METRICS_TOKEN), port: 9464 });
    expect(JSON.stringify(config)).not.toContain(METRICS_TOKEN);
  });
});
