import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { append, seedThread, USER } from "./context-fixtures.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("summaries repo and the uncovered rows", () => {
  it("keeps one summary per branch point, gives a branch the latest on its path, and never shows or writes another user's", async () => {
    server = await startTestServer();
    const { threadId, rows } = await seedThread(server, 2);
    const repos = server.repos;
    const path = rows.map((r) => r.id);
    expect(await repos.summaries.get(USER, threadId, path)).toBeUndefined();
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
    expect(await repos.summaries.get(USER, threadId, path)).toEqual({
      summary: "two",
      throughMessageId: rows[5]?.id,
      messageCount: 6,
    });
    // A branch that leaves the thread after rows[3] has only the summary of that prefix.
    expect((await repos.summaries.get(USER, threadId, path.slice(0, 4)))?.summary).toBe("one");
    expect(await repos.summaries.get(USER, threadId, path.slice(0, 3))).toBeUndefined();
    await repos.users.ensure("mallory");
    expect(await repos.summaries.get("mallory", threadId, path)).toBeUndefined();
    await expect(
      repos.summaries.put("mallory", threadId, { summary: "evil", throughMessageId: "x", messageCount: 1 }),
    ).rejects.toMatchObject({ code: "not_found" });
    expect((await repos.summaries.get(USER, threadId, path))?.summary).toBe("two");
  });

  it("reads a branch after a message, whole for an id off the branch, and nothing for another user", async () => {
    server = await startTestServer();
    const { threadId, rows } = await seedThread(server, 2);
    const last = await append(server, threadId, { role: "user", content: "latest" });
    const after = await server.repos.messages.branch(USER, threadId, { afterId: rows[5]?.id ?? "" });
    expect(after?.messages.map((r) => r.content)).toEqual(["result r-001", "answer a-001", "latest"]);
    expect(after?.ids).toHaveLength(9);
    expect((await server.repos.messages.branch(USER, threadId, { afterId: last.id }))?.messages).toEqual([]);
    expect((await server.repos.messages.branch(USER, threadId, { afterId: "nope" }))?.messages).toHaveLength(
      9,
    );
    await server.repos.users.ensure("mallory");
    await expect(server.repos.messages.branch("mallory", threadId)).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
