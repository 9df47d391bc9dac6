import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { append, seedThread, USER } from "./context-fixtures.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("summaries repo and the uncovered rows", () => {
  it("stores one summary per thread, replaces it, and never shows or writes another user's", async () => {
    server = await startTestServer();
    const { threadId, rows } = await seedThread(server, 2);
    const repos = server.repos;
    expect(await repos.summaries.get(USER, threadId)).toBeUndefined();
    await repos.summaries.put(USER, threadId, {
      summary: "one",
      throughMessageId: rows[3]?.id ?? "",
      messageCount: 4,
    });
    await repos.summaries.put(USER, threadId, {
      summary: "two",
      throughMessageId: rows[5]?.id ?? "",
      messageCount: 6,
    });
    expect(await repos.summaries.get(USER, threadId)).toEqual({
      summary: "two",
      throughMessageId: rows[5]?.id,
      messageCount: 6,
    });
    await repos.users.ensure("mallory");
    expect(await repos.summaries.get("mallory", threadId)).toBeUndefined();
    await expect(
      repos.summaries.put("mallory", threadId, { summary: "evil", throughMessageId: "x", messageCount: 1 }),
    ).rejects.toMatchObject({ code: "not_found" });
    expect((await repos.summaries.get(USER, threadId))?.summary).toBe("two");
  });

  it("lists the rows after a message, and nothing for an unknown id or another user", async () => {
    server = await startTestServer();
    const { threadId, rows } = await seedThread(server, 2);
    const last = await append(server, threadId, { role: "user", content: "latest" });
    const after = await server.repos.messages.listAfter(USER, threadId, rows[5]?.id ?? "");
    expect(after?.map((r) => r.content)).toEqual(["result r-001", "answer a-001", "latest"]);
    expect(await server.repos.messages.listAfter(USER, threadId, last.id)).toEqual([]);
    expect(await server.repos.messages.listAfter(USER, threadId, "nope")).toBeUndefined();
    await server.repos.users.ensure("mallory");
    expect(await server.repos.messages.listAfter("mallory", threadId, rows[5]?.id ?? "")).toBeUndefined();
  });
});
