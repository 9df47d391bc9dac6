import { defineTool, type Tool } from "@agentwire-chat/agents";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentwireMetrics } from "../../src/index.js";
import { toolEnds } from "../tools/tool-helpers.js";
import { threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SECRET = "sk-live-hunter2-do-not-leak";

const crashing: Tool = defineTool({
  name: "crashy",
  description: "a tool with a bug",
  permissionClass: "safe",
  args: z.object({}),
  async execute() {
    throw new Error(`connect to postgres://admin:${SECRET}@10.0.0.5/internal failed`);
  },
}) as Tool;

describe("a tool that throws", () => {
  it("gives the model and clients only a ref, logs it at error with ids and stack, and counts it", async () => {
    const metrics = new AgentwireMetrics({
      openSockets: () => 1,
      turns: () => ({ running: 0, suspended: 0 }),
    });
    server = await startChatServer(
      [{ toolCalls: [{ id: "c1", name: "crashy", args: {} }] }, { text: "sorry" }],
      {
        extraTools: [crashing],
        observer: metrics,
      },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "go" });
    const frames = await client.collectUntil(isDone, 60_000);
    expectWellFormedTurn(frames);

    const [end] = toolEnds(frames);
    expect(end).toMatchObject({ tool_call_id: "c1", is_error: true });
    const match = /^tool crashy failed \(internal error, ref ([0-9a-f]{12})\)$/.exec(String(end?.result));
    expect(match, String(end?.result)).not.toBeNull();
    const ref = match?.[1] as string;

    // Nothing of the thrown text reaches a client frame or the model's next request.
    const wire = JSON.stringify(frames);
    expect(wire).not.toContain(SECRET);
    expect(wire).not.toContain("postgres://");
    const second = JSON.stringify(server.provider.requests[1]?.messages);
    expect(second).toContain(`ref ${ref}`);
    expect(second).not.toContain(SECRET);

    const lines = server.logs.flatMap((l) => l.split("\n")).filter((l) => l.includes(ref));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 50,
      ref,
      tool: "crashy",
      user_id: expect.any(String),
      thread_id: threadOf(frames),
      turn_id: expect.any(String),
      node_id: "c1",
      depth: 0,
    });
    expect(String((line.err as { stack?: string }).stack)).toMatch(/\n\s+at /);
    // The operator gets the message and stack, without the secret the bug echoed into them.
    expect(String((line.err as { message?: string }).message)).toBe(
      "connect to postgres://[redacted]@10.0.0.5/internal failed",
    );
    expect(lines[0]).not.toContain(SECRET);

    const text = await metrics.registry.metrics();
    expect(text).toMatch(/agentwire_tool_crashes_total\{tool="crashy"\} 1\b/);
  });
});
