import { defineTool, ok } from "@agentwire-chat/agents";
import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentwireMetrics, metricsRoute } from "../../src/index.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const flaky = defineTool({
  name: "flaky",
  description: "fails on purpose",
  args: z.object({ fail: z.boolean() }),
  permissionClass: "safe",
  execute: async ({ fail }) => (fail ? { type: "result", output: "boom", isError: true } : ok("fine")),
});

describe("metrics", () => {
  it("counts turns, provider calls, tokens, tool calls and errors, budget breaches, in Prometheus text", async () => {
    let sockets = 0;
    const metrics = new AgentwireMetrics({
      openSockets: () => sockets,
      turns: () => ({ running: 2, suspended: 1 }),
    });
    server = await startChatServer(
      [
        {
          toolCalls: [
            { name: "flaky", args: { fail: true } },
            { name: "flaky", args: { fail: false } },
          ],
          usage: { inputTokens: 100, outputTokens: 20 },
        },
        { text: "done", usage: { inputTokens: 150, outputTokens: 5 } },
      ],
      { extraTools: [flaky], observer: metrics },
    );
    const client = await server.connect();
    sockets = 1;
    client.command("chat_message", { content: "go" });
    await client.collectUntil(isDone);

    const app = Fastify();
    await app.register(metricsRoute, { metrics });
    const res = await app.inject({ method: "GET", url: "/metrics" });
    await app.close();
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/plain");
    const text = res.body;
    expect(text).toContain("agentwire_open_sockets 1");
    expect(text).toContain('agentwire_turns_active{state="running"} 2');
    expect(text).toContain('agentwire_turns_ended_total{status="complete"} 1');
    expect(text).toContain(
      'agentwire_provider_calls_total{provider="scripted",model="scripted-1",operation="turn",outcome="ok"} 2',
    );
    expect(text).toContain(
      'agentwire_tokens_total{provider="scripted",model="scripted-1",operation="turn",kind="input"} 250',
    );
    expect(text).toContain('agentwire_tool_calls_total{tool="flaky"} 2');
    expect(text).toContain('agentwire_tool_errors_total{tool="flaky"} 1');
    expect(text).toContain("nodejs_eventloop_lag_p99_seconds");
  });

  it("counts a budget breach by reason", async () => {
    const metrics = new AgentwireMetrics({
      openSockets: () => 0,
      turns: () => ({ running: 0, suspended: 0 }),
    });
    server = await startChatServer([{ toolCalls: [{ name: "flaky", args: { fail: false } }] }], {
      extraTools: [flaky],
      observer: metrics,
      limits: { MAX_TOTAL_LLM_CALLS: 1 },
    });
    const client = await server.connect();
    client.command("chat_message", { content: "go" });
    await client.collectUntil(isDone);
    const text = await metrics.registry.metrics();
    expect(text).toContain('agentwire_budget_breaches_total{reason="llm_calls"} 1');
    expect(text).toContain('agentwire_turns_ended_total{status="budget_exceeded"} 1');
  });
});
