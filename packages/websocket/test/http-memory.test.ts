import { MemoryEntry } from "@agentwire-chat/protocol";
import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function entries(s: TestServer, token: string): Promise<MemoryEntry[]> {
  const res = await s.fetch("/api/memory", { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { entries: unknown[] }).entries.map((e) => MemoryEntry.parse(e));
}

describe("the user's memory over HTTP", () => {
  it("lists the user's keys with values, forgets one key or all, and never touches another user's", async () => {
    server = await startTestServer({ auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    await server.repos.memories.set("alice", "pet", "a cat named Io", 5_000);
    await server.repos.memories.set("alice", "city", "Lyon");
    await server.repos.memories.set("alice", "lang", "French");
    await server.repos.memories.set("bob", "pet", "a dog");

    const listed = await entries(server, alice);
    expect(listed.map((e) => [e.key, e.value])).toEqual([
      ["city", "Lyon"],
      ["lang", "French"],
      ["pet", "a cat named Io"],
    ]);
    expect(listed[2]?.updated_at).toBe(new Date(5_000).toISOString());

    // One key: bob cannot forget alice's (his own "pet" goes, hers stays); a missing key is 404.
    expect((await server.fetch("/api/memory/pet", { method: "DELETE", token: bob })).status).toBe(204);
    expect(await server.repos.memories.get("alice", "pet")).toBe("a cat named Io");
    const gone = await server.fetch("/api/memory/pet", { method: "DELETE", token: bob });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ code: "not_found" });
    expect((await server.fetch("/api/memory/city", { method: "DELETE", token: alice })).status).toBe(204);
    expect((await entries(server, alice)).map((e) => e.key)).toEqual(["lang", "pet"]);

    // All of them: only the caller's.
    await server.repos.memories.set("bob", "team", "blue");
    expect((await server.fetch("/api/memory", { method: "DELETE", token: alice })).status).toBe(204);
    expect(await entries(server, alice)).toEqual([]);
    expect((await entries(server, bob)).map((e) => [e.key, e.value])).toEqual([["team", "blue"]]);
    expect(await server.countRows("memories")).toBe(1);
    // Clearing an empty memory is not an error.
    expect((await server.fetch("/api/memory", { method: "DELETE", token: alice })).status).toBe(204);
  });

  it("requires a token like the rest of /api", async () => {
    server = await startTestServer({ auth: "token" });
    expect((await server.fetch("/api/memory")).status).toBe(401);
    expect((await server.fetch("/api/memory", { method: "DELETE" })).status).toBe(401);
  });
});
