import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProviderRegistry, providerRegistryConfigFromEnv } from "../../src/index.js";
import { collect, request } from "./helpers/collect.js";
import { WEATHER_TOOL } from "./helpers/history.js";
import { type MockLlmServer, messagesSse, sse, startMockLlmServer } from "./helpers/mock-llm-server.js";

const DONE = messagesSse([
  { type: "message_start", message: { id: "m", usage: { input_tokens: 1, output_tokens: 1 } } },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
  { type: "message_stop" },
] as { type: string }[]);

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

/** The body the registry's anthropic provider sends under these environment variables. */
async function bodyUnder(env: Record<string, string>): Promise<string> {
  const config = providerRegistryConfigFromEnv({
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: server.url,
    ...env,
  });
  const registry = createProviderRegistry({ ...config, maxRetries: 0 });
  server.reply(sse(DONE));
  await collect(registry.get("anthropic")!, request({ tools: [WEATHER_TOOL] }));
  return JSON.stringify(server.requests.at(-1)!.body);
}

describe("ANTHROPIC_PROMPT_CACHE from the environment to the request body", () => {
  it("marks breakpoints by default and with on; off sends no cache_control and a plain system string", async () => {
    expect(await bodyUnder({})).toContain('"cache_control":{"type":"ephemeral"}');
    expect(await bodyUnder({ ANTHROPIC_PROMPT_CACHE: "on" })).toContain("cache_control");
    const off = JSON.parse(await bodyUnder({ ANTHROPIC_PROMPT_CACHE: "off" })) as { system: unknown };
    expect(JSON.stringify(off)).not.toContain("cache_control");
    expect(off.system).toBe("You are terse.");
  });
});
