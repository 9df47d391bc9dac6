import { type StoredMessage, ThreadSummary } from "@agentwire-chat/protocol";
import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("HTTP API", () => {
  it("serves /health without auth and /ready once migrations are applied", async () => {
    server = await startTestServer({ auth: "token" });
    expect(await (await server.fetch("/health")).json()).toEqual({ status: "ok" });
    const ready = await server.fetch("/ready");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok" } });
  });

  it("answers /ready 503 naming each dependency that fails, and 200 again once it answers", async () => {
    let redisUp = false;
    server = await startTestServer({
      readiness: {
        redis: async () => redisUp,
        hanging: () => (redisUp ? Promise.resolve(true) : new Promise<boolean>(() => {})),
      },
    });
    const down = await server.fetch("/ready");
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      status: "not_ready",
      checks: { database: "ok", redis: "failing", hanging: "failing" },
    });
    redisUp = true;
    const up = await server.fetch("/ready");
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({
      status: "ready",
      checks: { database: "ok", redis: "ok", hanging: "ok" },
    });
  });

  it("requires a token on /api, as a Bearer header or ?api_key", async () => {
    server = await startTestServer({ auth: "token" });
    const token = await server.createToken("alice");
    expect((await server.fetch("/api/threads")).status).toBe(401);
    expect((await server.fetch("/api/threads", { token: "nope" })).status).toBe(401);
    expect((await server.fetch("/api/threads", { token })).status).toBe(200);
    expect((await server.fetch(`/api/threads?api_key=${token}`)).status).toBe(200);
  });

  it("scopes threads by user: another user's thread is 404 exactly like a missing one", async () => {
    server = await startTestServer({ auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const thread = await server.repos.threads.create("alice", "Alice's plans");
    await server.repos.messages.append("alice", thread.id, {
      role: "user",
      content: "hello",
      status: "complete",
    });
    await server.repos.messages.append("alice", thread.id, {
      role: "assistant",
      content: "hi",
      status: "complete",
      provider: "scripted",
      model: "m",
    });

    const list = (await (await server.fetch("/api/threads", { token: alice })).json()) as {
      threads: unknown[];
    };
    expect(list.threads).toHaveLength(1);
    expect(ThreadSummary.parse(list.threads[0])).toMatchObject({ id: thread.id, title: "Alice's plans" });
    const response = await server.fetch(`/api/threads/${thread.id}/messages`, { token: alice });
    const messages = (await response.json()) as { messages: StoredMessage[] };
    expect(messages.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messages.messages[1]).toMatchObject({ provider: "scripted", model: "m", status: "complete" });

    expect(await (await server.fetch("/api/threads", { token: bob })).json()).toEqual({ threads: [] });
    const theirs = await server.fetch(`/api/threads/${thread.id}/messages`, { token: bob });
    const missing = await server.fetch("/api/threads/no-such-thread/messages", { token: bob });
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await theirs.json()).toEqual(await missing.json());
    const deleteTheirs = await server.fetch(`/api/threads/${thread.id}`, { method: "DELETE", token: bob });
    const deleteMissing = await server.fetch("/api/threads/no-such-thread", { method: "DELETE", token: bob });
    expect(deleteTheirs.status).toBe(404);
    expect(await deleteTheirs.json()).toEqual(await deleteMissing.json());
    expect(await server.repos.threads.get("alice", thread.id)).toBeDefined();

    const deleted = await server.fetch(`/api/threads/${thread.id}`, { method: "DELETE", token: alice });
    expect(deleted.status).toBe(204);
    expect(await server.repos.threads.get("alice", thread.id)).toBeUndefined();
    // Cascade: the thread's messages went with it.
    expect(await server.countRows("messages")).toBe(0);
  });
});
