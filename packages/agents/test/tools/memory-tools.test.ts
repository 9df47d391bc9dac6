import { describe, expect, it } from "vitest";
import { createMemoryTools, InMemoryMemoryStore, type MemoryStore } from "../../src/tools/builtin/index.js";
import { errorText, okOutput, runTool, toolNamed } from "./run-tool.js";

function memoryFor(store: MemoryStore, userId: string, limits?: Parameters<typeof createMemoryTools>[2]) {
  const tools = createMemoryTools(store, userId, limits);
  return {
    list: toolNamed(tools, "memory_list"),
    read: toolNamed(tools, "memory_read"),
    write: toolNamed(tools, "memory_write"),
  };
}

describe("memory tools", () => {
  it("declares class knowledge and the memory lock on writes", () => {
    const m = memoryFor(new InMemoryMemoryStore(), "alice");
    expect([m.list, m.read, m.write].map((t) => t.permissionClass)).toEqual([
      "knowledge",
      "knowledge",
      "knowledge",
    ]);
    expect(m.write.parallelSafe).toBe(false);
    expect(m.write.requiresExclusiveLock).toBe("memory");
    expect(m.read.parallelSafe).toBe(true);
  });

  it("writes, overwrites, reads and lists", async () => {
    const m = memoryFor(new InMemoryMemoryStore(), "alice");
    expect(okOutput(await runTool(m.write, { key: "pref.lang", value: "fr" }))).toEqual({
      key: "pref.lang",
      bytes: 2,
      created: true,
    });
    expect(okOutput(await runTool(m.write, { key: "pref.lang", value: "de" }))).toMatchObject({
      created: false,
    });
    await runTool(m.write, { key: "a-key", value: "x" });
    expect(okOutput(await runTool(m.read, { key: "pref.lang" }))).toEqual({ key: "pref.lang", value: "de" });
    expect(okOutput(await runTool(m.list, {}))).toMatchObject({ keys: ["a-key", "pref.lang"], count: 2 });
  });

  it("isolates users: B cannot read, list or overwrite A's keys, whatever the arguments say", async () => {
    const store = new InMemoryMemoryStore();
    const a = memoryFor(store, "alice");
    const b = memoryFor(store, "bob");
    await runTool(a.write, { key: "secret", value: "alice's" });
    expect(errorText(await runTool(b.read, { key: "secret" }))).toMatch(/no memory stored under key secret/);
    expect(errorText(await runTool(b.read, { key: "alice/secret" }))).toMatch(/may only contain/);
    // Extra arguments naming another user are stripped by the schema, never used.
    expect(errorText(await runTool(b.read, { key: "secret", userId: "alice", user_id: "alice" }))).toMatch(
      /no memory/,
    );
    expect(okOutput(await runTool(b.list, { userId: "alice" }))).toMatchObject({ keys: [] });
    await runTool(b.write, { key: "secret", value: "bob's", userId: "alice" });
    expect(await store.get("alice", "secret")).toBe("alice's");
    expect(await store.get("bob", "secret")).toBe("bob's");
  });

  it("validates keys", async () => {
    const m = memoryFor(new InMemoryMemoryStore(), "alice");
    for (const key of ["", "../x", "a b", "a\u0000b", ".hidden", "-x", "ключ", "a/b", "x".repeat(129)]) {
      expect(errorText(await runTool(m.write, { key, value: "v" }))).toMatch(/key|invalid arguments/);
    }
    expect(errorText(await runTool(m.read, { key: 42 }))).toMatch(/invalid arguments for memory_read/);
    okOutput(await runTool(m.write, { key: "x".repeat(128), value: "v" }));
  });

  it("caps value size and the number of keys per user", async () => {
    const store = new InMemoryMemoryStore();
    const m = memoryFor(store, "alice", { maxKeysPerUser: 3 });
    expect(errorText(await runTool(m.write, { key: "big", value: "é".repeat(8193) }))).toMatch(
      /16386 bytes; memory_write accepts at most 16384/,
    );
    okOutput(await runTool(m.write, { key: "max", value: "x".repeat(16384) }));
    await Promise.all(["k1", "k2", "k3", "k4"].map((key) => runTool(m.write, { key, value: "v" })));
    expect(await store.list("alice")).toHaveLength(3);
    expect(errorText(await runTool(m.write, { key: "k9", value: "v" }))).toMatch(/memory is full \(3 keys\)/);
    okOutput(await runTool(m.write, { key: "max", value: "overwrite is fine" }));
  });

  it("hides store failures behind a plain message", async () => {
    const broken: MemoryStore = {
      list: () => Promise.reject(new Error("SQLITE_CANTOPEN /var/lib/secret.db password=hunter2")),
      get: () => Promise.reject(new Error("SQLITE_CANTOPEN /var/lib/secret.db")),
      set: () => Promise.reject(new Error("boom")),
    };
    const text = errorText(await runTool(memoryFor(broken, "alice").list, {}));
    expect(text).toBe("the memory store is unavailable; try again later");
  });
});
