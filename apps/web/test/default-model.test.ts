import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createProviderRegistry } from "@agentwire-chat/agents";
import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { createChatServices } from "../../../packages/websocket/src/index.js";
import { loadConfig } from "../../server/src/config.js";
import { createHttpApi } from "../src/net/http-api.js";
import { initialModel } from "../src/net/initial-model.js";

/** An OpenAI-compatible server that only lists its models (what `GET /api/providers` asks it). */
async function startModelsServer(models: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data: models.map((id) => ({ id, object: "model" })) }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let upstream: { url: string; close(): Promise<void> } | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  await upstream?.close();
  server = upstream = undefined;
});

/** The real server configured from the environment like the process: providers and defaults. */
async function serverFor(env: Record<string, string>): Promise<TestServer> {
  const config = loadConfig({ LOG_LEVEL: "silent", ...env });
  const providers = createProviderRegistry(config.providers);
  const chat = createChatServices({
    providers,
    defaults: { provider: config.defaultProvider, model: config.defaultModel },
  });
  return startTestServer({ services: { chat } });
}

describe("the server's default model, as GET /api/providers names it and the web page starts with it", () => {
  it("names the default provider and a compatible endpoint's <NAME>_MODEL; the page starts there, not on the first model listed", async () => {
    upstream = await startModelsServer(["aaa-first-listed", "qwen-7b", "zzz"]);
    server = await serverFor({
      OPENAI_COMPAT_ENDPOINTS: `alpha=${upstream.url}/v1,local=${upstream.url}/v1`,
      LOCAL_MODEL: "qwen-7b",
      DEFAULT_PROVIDER: "local",
    });
    const raw = await (await server.fetch("/api/providers")).json();
    expect(raw).toEqual({
      providers: [
        { id: "alpha", models: ["aaa-first-listed", "qwen-7b", "zzz"] },
        { id: "local", models: ["aaa-first-listed", "qwen-7b", "zzz"], default_model: "qwen-7b" },
      ],
      default_provider: "local",
    });
    const answer = await createHttpApi(() => undefined, server.httpUrl).providers();
    expect(initialModel(answer, {})).toEqual({ provider: "local", model: "qwen-7b" });
    // A choice the user made and the page remembered still wins.
    expect(initialModel(answer, { provider: "alpha", model: "zzz" })).toEqual({
      provider: "alpha",
      model: "zzz",
    });
    // A remembered provider the server no longer has falls back to the server's default.
    expect(initialModel(answer, { provider: "gone", model: "x" })).toEqual({
      provider: "local",
      model: "qwen-7b",
    });
  });

  it("DEFAULT_MODEL is the default provider's default model; without DEFAULT_PROVIDER none is named", async () => {
    upstream = await startModelsServer(["m1", "m2"]);
    server = await serverFor({
      OPENAI_COMPAT_ENDPOINTS: `local=${upstream.url}/v1`,
      LOCAL_MODEL: "m1",
      DEFAULT_PROVIDER: "local",
      DEFAULT_MODEL: "m2",
    });
    expect(await (await server.fetch("/api/providers")).json()).toEqual({
      providers: [{ id: "local", models: ["m1", "m2"], default_model: "m2" }],
      default_provider: "local",
    });
    await server.close();
    server = await serverFor({ OPENAI_COMPAT_ENDPOINTS: `local=${upstream.url}/v1`, LOCAL_MODEL: "m1" });
    expect(await (await server.fetch("/api/providers")).json()).toEqual({
      providers: [{ id: "local", models: ["m1", "m2"], default_model: "m1" }],
    });
  });
});
