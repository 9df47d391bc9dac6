import type { ServerFrame } from "@agentwire-chat/protocol";
import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TABLES = ["threads", "messages", "turns", "llm_calls", "frame_batches"];

let server: ChatTestServer;
beforeAll(async () => {
  // One scripted step: only the last, non-blank message may reach the provider.
  server = await startChatServer([{ text: "still here" }]);
});
afterAll(async () => {
  await server?.close();
});

const rowCounts = async () =>
  Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await server.countRows(t)])));

describe("a blank chat_message", () => {
  it.each([
    ["empty text", ""],
    ["whitespace-only text", " \n\t\u00a0 "],
    [
      "only blank text parts",
      [
        { type: "text", text: "" },
        { type: "text", text: "   " },
      ],
    ],
  ])("%s is bad_request with the request_id, stores nothing and starts no turn", async (_name, content) => {
    const client = await server.connect();
    const before = await rowCounts();
    client.command("chat_message", { content }, "blank-1");
    const error = await client.next("error");
    expect(error).toMatchObject({ code: "bad_request", request_id: "blank-1" });
    expect(error.message).toMatch(/^content: /);
    await client.ping();
    expect(client.received.filter((f) => f.type !== "error" && f.type !== "pong")).toEqual([]);
    expect(await rowCounts()).toEqual(before);
    expect(server.provider.requests).toHaveLength(0);
    await client.close();
  });

  it("refuses blank text on an existing thread too, and the thread still takes a real message", async () => {
    const client = await server.connect();
    client.command("chat_message", { content: "hello" }, "r1");
    // The one scripted step answers this; the blank message after it must not consume a step.
    const first: ServerFrame[] = await client.collectUntil(isDone);
    const threadId = (first[0] as { thread_id: string }).thread_id;
    const before = await rowCounts();
    client.command("chat_message", { thread_id: threadId, content: "  " }, "r2");
    expect(await client.next("error")).toMatchObject({ code: "bad_request", request_id: "r2" });
    expect(await rowCounts()).toEqual(before);
    expect(server.provider.requests).toHaveLength(1);
    await client.close();
  });

  it("an image with blank text is not blank", async () => {
    const client = await server.connect();
    const content = [
      { type: "text", text: " " },
      { type: "image", uri: "https://example.com/a.png", mime_type: "image/png" },
    ];
    client.command("chat_message", { content, thread_id: "th_missing" }, "img");
    // Past the blank check it reaches routing: this thread does not exist.
    expect(await client.next("error")).toMatchObject({ code: "not_found", request_id: "img" });
    await client.close();
  });
});
