import { findTooDeep, MAX_JSON_DEPTH } from "@agentwire-chat/protocol";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { startTestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { UIToolProxy } from "../../src/index.js";
import { injectedModel } from "../tools/tool-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `{"type":"object","properties":{"a":{...}}}` nested `levels` objects deep. */
function deepSchema(levels: number): unknown {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 1; i < levels; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

/** The JSON text of `levels` nested arrays, built as text: JSON.stringify itself overflows on deep values. */
function deepArrayText(levels: number): string {
  return `${"[".repeat(levels)}1${"]".repeat(levels)}`;
}

function deepSchemaText(levels: number): string {
  const open = '{"type":"object","properties":{"a":';
  return `${open.repeat(levels - 1)}{"type":"string"}${"}}".repeat(levels - 1)}`;
}

function deepArray(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

async function startUiServer(): Promise<{ server: ChatTestServer; uiTools: UIToolProxy }> {
  const uiTools = new UIToolProxy({});
  server = await startChatServer(injectedModel(), { uiTools, editorTools: [] });
  return { server, uiTools };
}

describe("deeply nested JSON from a client", () => {
  it("answers bad_request naming the field for a 5,000-level input_schema, and the socket goes on", async () => {
    const { server } = await startUiServer();
    const client = await server.connect();
    const before = server.logs.length;
    client.send(
      `{"command":"client_tools_manifest","request_id":"deep-1","data":{"tools":[{"name":"ui_deep","description":"deep","input_schema":${deepSchemaText(5000)}}]}}`,
    );
    const error = await client.next("error");
    expect(error).toMatchObject({ code: "bad_request", request_id: "deep-1" });
    expect(error.message).toMatch(/^data\.tools\.0\.input_schema\.properties.*nested deeper than 64 levels$/);
    await client.ping();
    // Refused at parse time: no handler ran, nothing was logged as a failure.
    expect(server.logs.slice(before).some((line) => line.includes('"level":50'))).toBe(false);
  });

  it("accepts a schema that stays within the limit, and refuses deep content in a chat_message", async () => {
    const { server, uiTools } = await startUiServer();
    const client = await server.connect();
    // The frame, data, tools, the tool and input_schema itself make 5 levels; each schema level adds 2.
    const fits = (MAX_JSON_DEPTH - 4 + 1) / 2;
    client.command("client_tools_manifest", {
      tools: [{ name: "ui_fit", description: "", input_schema: deepSchema(Math.floor(fits)) }],
    });
    await client.ping();
    expect(client.received.filter((f) => f.type === "error")).toEqual([]);
    expect(uiTools.pendingCount()).toBe(0);
    client.command("chat_message", { content: deepArray(MAX_JSON_DEPTH) }, "deep-content");
    expect(await client.next("error")).toMatchObject({ code: "bad_request", request_id: "deep-content" });
  });

  it("refuses any frame nested past the limit (arrays too), whatever the command", async () => {
    const { server } = await startUiServer();
    const client = await server.connect();
    const threads = await server.countRows("threads");
    client.send(
      `{"command":"chat_message","request_id":"arr","data":{"content":"x","extra":${deepArrayText(100_000)}}}`,
    );
    const error = await client.next("error");
    expect(error).toMatchObject({ code: "bad_request", request_id: "arr" });
    expect(error.message).toContain("data.extra.0.0.0.0…");
    await client.ping();
    expect(await server.countRows("threads")).toBe(threads);
  });

  it("refuses an HTTP body nested past the limit with 400 bad_request, on every route", async () => {
    let handled = 0;
    const plain = await startTestServer({
      routes: async (app) => {
        app.post("/echo", async () => {
          handled += 1;
          return { ok: true };
        });
      },
    });
    try {
      const post = (body: unknown) =>
        fetch(`${plain.httpUrl}/echo`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const refused = await fetch(`${plain.httpUrl}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"graph":${deepArrayText(1000)}}`,
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        code: "bad_request",
        message: expect.stringContaining("body.graph.0"),
      });
      expect(handled).toBe(0);
      expect((await post({ graph: deepArray(10) })).status).toBe(200);
      expect(handled).toBe(1);
    } finally {
      await plain.close();
    }
  });
});

describe("findTooDeep", () => {
  it("names the first path past the limit and passes values at it", () => {
    expect(findTooDeep(deepArray(4), "v", 4)).toBeUndefined();
    expect(findTooDeep(deepArray(5), "v", 4)).toBe("v.0.0.0.0");
    expect(findTooDeep({ a: { b: [{ c: {} }] } }, "d", 4)).toBe("d.a.b.0.c");
    expect(findTooDeep("text", "d", 1)).toBeUndefined();
    expect(findTooDeep(JSON.parse(deepArrayText(100_000)), "big")).toMatch(/^big\.0\.0\.0\.0\.0…$/);
  });
});
