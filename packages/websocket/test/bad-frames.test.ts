import { startTestServer, type TestClient, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestServer;
let client: TestClient;
beforeAll(async () => {
  server = await startTestServer();
  client = await server.connect();
});
afterAll(async () => {
  await server.close();
});

const cases: { name: string; frame: string | object; code: string; message?: RegExp; requestId?: string }[] =
  [
    { name: "invalid JSON", frame: "{not json", code: "bad_json" },
    { name: "a JSON array", frame: "[1,2]", code: "bad_request", message: /^frame:/ },
    {
      name: "a missing command",
      frame: { data: {}, request_id: "r1" },
      code: "bad_request",
      message: /^command:/,
      requestId: "r1",
    },
    {
      name: "an unknown command",
      frame: { command: "fly", data: {}, request_id: "r2" },
      code: "unknown_command",
      requestId: "r2",
    },
    {
      name: "a wrong field type",
      frame: { command: "chat_message", data: { content: 42 }, request_id: "r3" },
      code: "bad_request",
      message: /^data\.content:/,
      requestId: "r3",
    },
    {
      name: "a missing required field",
      frame: { command: "stop", data: {}, request_id: "r4" },
      code: "bad_request",
      message: /^data\.thread_id:/,
      requestId: "r4",
    },
    {
      name: "a nested bad field",
      frame: { command: "resume_chat", data: { thread_id: "t", last_seq: -1 }, request_id: "r5" },
      code: "bad_request",
      message: /^data\.last_seq:/,
      requestId: "r5",
    },
    {
      name: "an unknown data field",
      frame: { command: "ping", data: { extra: true }, request_id: "r6" },
      code: "bad_request",
      message: /^data\.extra: unknown field/,
      requestId: "r6",
    },
    {
      name: "an unknown envelope field",
      frame: { command: "ping", data: {}, extra: 1, request_id: "r7" },
      code: "bad_request",
      message: /^extra: unknown field/,
      requestId: "r7",
    },
    {
      name: "a bad enum value",
      frame: {
        command: "tool_approval_response",
        data: { approval_id: "a", decision: "maybe" },
        request_id: "r8",
      },
      code: "bad_request",
      message: /^data\.decision:/,
      requestId: "r8",
    },
    {
      name: "a non-string request_id",
      frame: { command: "ping", data: {}, request_id: 5 },
      code: "bad_request",
    },
  ];

describe("bad frames get an error with the contract's code and the connection stays open", () => {
  for (const c of cases) {
    it(c.name, async () => {
      client.send(c.frame);
      const error = await client.next("error");
      expect(error.code).toBe(c.code);
      if (c.message) expect(error.message).toMatch(c.message);
      expect(error.request_id).toBe(c.requestId);
      await client.ping();
    });
  }

  it("a binary frame is refused as bad_request", async () => {
    client.ws.send(Buffer.from('{"command":"ping","data":{}}'), { binary: true });
    expect((await client.next("error")).code).toBe("bad_request");
    await client.ping();
  });

  it("stores nothing for bad frames", async () => {
    for (const table of ["threads", "messages", "turns"]) expect(await server.countRows(table)).toBe(0);
  });
});

describe("commands not implemented yet", () => {
  const valid: Record<string, unknown> = {
    chat_message: { content: "hello" },
    stop: { thread_id: "t1" },
    resume_chat: { thread_id: "t1", last_seq: 0 },
    answer: { thread_id: "t1", tool_call_id: "c1", answer: "yes" },
    tool_approval_response: { approval_id: "a1", decision: "allow" },
    client_tools_manifest: { tools: [] },
    tool_result: { tool_call_id: "c1", ok: true },
  };
  for (const [command, data] of Object.entries(valid)) {
    it(`${command} is validated and answered unavailable with its request_id`, async () => {
      client.command(command, data, `req-${command}`);
      const error = await client.next("error");
      expect(error).toMatchObject({ code: "unavailable", request_id: `req-${command}` });
    });
  }

  it("a chat_message with bad content is refused as bad_request, not unavailable", async () => {
    client.command("chat_message", { content: [] }, "bad-chat");
    expect(await client.next("error")).toMatchObject({ code: "bad_request", request_id: "bad-chat" });
  });
});
