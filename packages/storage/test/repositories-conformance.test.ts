import type { LlmCallRecord } from "@agentwire-chat/agents";
import type { ExecutionTreeSnapshot, StoredToolCall, TurnUsage } from "@agentwire-chat/protocol";
import {
  type NewMessage,
  type NewQueuedMessage,
  type Repositories,
  readTurnCheckpoint,
  readTurnStart,
  type SuspendedTurn,
} from "@agentwire-chat/storage";
import { createPgRepositories, openPostgres } from "@agentwire-chat/storage/postgres";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentwire-chat/testkit/postgres-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  postgresDialect,
  type RepositoryDialect,
  type RepositoryStore,
  sqliteDialect,
} from "./repository-stores.js";

// Past 2^31 ms, as real timestamps are: an int4 column or a bigint read back as a string would show.
const T0 = 1_795_000_000_000;
const skipPostgres = skipMissingService(postgresMissing());

const usage: TurnUsage = {
  input_tokens: 1200,
  output_tokens: 345,
  cache_read_tokens: 10,
  cache_write_tokens: 0,
  reasoning_tokens: 7,
  cost_usd: 0.1 + 0.2,
  cost_known: true,
  llm_calls: 3,
  tool_calls: 2,
  subtasks: 1,
};
const toolCalls: StoredToolCall[] = [
  { id: "call_1", name: "read_file", args: { path: "notes/ünïcode.md", lines: [1, 2], deep: { x: null } } },
  { id: "call_2", name: "memory_list", args: {} },
];
const executionTree: ExecutionTreeSnapshot = {
  version: 1,
  nodes: [
    { id: "call_1", parent_id: null, name: "run_subtask", title: "A", duration_ms: 12.5 },
    {
      id: "call_2",
      parent_id: "call_1",
      name: "read_file",
      args_preview: '{"path":"a"}',
      result_preview: 'line "one"\n',
      is_error: false,
      duration_ms: 3,
    },
  ],
};
const suspended = {
  version: 1,
  state: {
    version: 1,
    model: "m",
    toolCallId: "ask_1",
    suspension: { kind: "question", question: "Which file?" },
    levels: [
      {
        depth: 0,
        parentId: null,
        messages: [{ role: "user", content: "hi" }],
        pendingCall: { id: "ask_1", name: "ask_user" },
      },
    ],
  },
  tree: executionTree,
  usage,
  budgetUsed: { subtasks: 1, llmCalls: 2, toolCalls: 3, tokens: 400, bytes: 5000 },
  provider: "scripted",
  model: "m",
  chatContext: { kind: "thread" },
  memoryEnabled: true,
  text: "so far",
} as unknown as SuspendedTurn;
const call = (overrides: Partial<LlmCallRecord> = {}): LlmCallRecord => ({
  provider: "openai",
  model: "gpt-x",
  operation: "subtask",
  depth: 1,
  parentId: null,
  inputTokens: 100,
  outputTokens: 20,
  reasoningTokens: 5,
  cacheReadTokens: 3,
  cacheWriteTokens: 2,
  costUsd: 0.000123,
  costKnown: true,
  latencyMs: 12.6,
  startedAt: T0,
  ...overrides,
});

// One throwaway cluster for the whole file: every Postgres store is a new database on it.
let server: TestPostgres | undefined;
beforeAll(async () => {
  if (!skipPostgres) server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const dialects: { dialect: RepositoryDialect; skip: boolean }[] = [
  { dialect: sqliteDialect(), skip: false },
  { dialect: postgresDialect(() => server), skip: skipPostgres },
];

for (const { dialect, skip } of dialects) {
  describe.skipIf(skip)(`repositories on ${dialect.name}`, () => {
    let store: RepositoryStore;
    let r: Repositories;
    // Known SQLite divergence, kept visible: its prepared insert encodes a null is_error as 0 (see the test).
    beforeEach(async () => {
      store = await dialect.open();
      r = store.repos;
      await r.users.ensure("ann", T0);
      await r.users.ensure("bob", T0);
    });
    afterEach(() => store.close());

    describe("users", () => {
      it("ensure creates once and exists tells", async () => {
        expect(await r.users.exists("cid")).toBe(false);
        await r.users.ensure("cid", T0);
        await r.users.ensure("cid", T0 + 1);
        expect(await r.users.exists("cid")).toBe(true);
        expect(await r.users.exists("ann")).toBe(true);
      });
    });

    describe("api tokens", () => {
      it("finds an active token by hash, touches, lists oldest first per user or all, and revokes once", async () => {
        const a2 = await r.apiTokens.create("ann", "hash-a2", T0 + 2000);
        const a1 = await r.apiTokens.create("ann", "hash-a1", T0 + 1000);
        const b1 = await r.apiTokens.create("bob", "hash-b1", T0 + 1500);
        expect(new Set([a1, a2, b1]).size).toBe(3);
        expect(await r.apiTokens.findActiveByHash("hash-a1")).toEqual({
          id: a1,
          userId: "ann",
          tokenHash: "hash-a1",
          createdAt: T0 + 1000,
          lastUsedAt: null,
          revokedAt: null,
        });
        expect(await r.apiTokens.findActiveByHash("nope")).toBeUndefined();

        await r.apiTokens.touch(a1, T0 + 5000);
        expect((await r.apiTokens.findActiveByHash("hash-a1"))?.lastUsedAt).toBe(T0 + 5000);

        expect((await r.apiTokens.list("ann")).map((t) => t.id)).toEqual([a1, a2]);
        expect((await r.apiTokens.list("bob")).map((t) => t.id)).toEqual([b1]);
        expect((await r.apiTokens.list()).map((t) => t.id)).toEqual([a1, b1, a2]);

        expect(await r.apiTokens.revoke(a1, T0 + 6000)).toBe(true);
        expect(await r.apiTokens.revoke(a1, T0 + 7000)).toBe(false);
        expect(await r.apiTokens.revoke("no-such-token")).toBe(false);
        expect(await r.apiTokens.findActiveByHash("hash-a1")).toBeUndefined();
        const listed = await r.apiTokens.list("ann");
        expect(listed.map((t) => [t.id, t.revokedAt])).toEqual([
          [a1, T0 + 6000],
          [a2, null],
        ]);
      });
    });

    describe("threads", () => {
      it("creates, gets only for the owner, lists most recently updated first", async () => {
        const t1 = await r.threads.create("ann", "first", T0 + 1000);
        const t2 = await r.threads.create("ann", "second", T0 + 2000);
        const t3 = await r.threads.create("ann", "third", T0 + 3000);
        await r.threads.create("bob", "bob's", T0 + 9000);
        expect(t1).toEqual({
          id: t1.id,
          userId: "ann",
          title: "first",
          createdAt: T0 + 1000,
          updatedAt: T0 + 1000,
          currentLeafId: null,
        });
        expect(await r.threads.get("ann", t1.id)).toEqual(t1);
        expect(await r.threads.get("bob", t1.id)).toBeUndefined();
        expect(await r.threads.get("ann", "missing")).toBeUndefined();
        expect((await r.threads.list("ann")).map((t) => t.id)).toEqual([t3.id, t2.id, t1.id]);

        expect(await r.threads.rename("ann", t1.id, "renamed", T0 + 4000)).toBe(true);
        const after = await r.threads.list("ann");
        expect(after.map((t) => t.id)).toEqual([t1.id, t3.id, t2.id]);
        expect(after[0]).toEqual({
          id: t1.id,
          title: "renamed",
          created_at: new Date(T0 + 1000).toISOString(),
          updated_at: new Date(T0 + 4000).toISOString(),
        });
        expect(await r.threads.get("ann", t1.id)).toEqual({ ...t1, title: "renamed", updatedAt: T0 + 4000 });
      });

      it("breaks an updatedAt tie by createdAt, newest first", async () => {
        const older = await r.threads.create("ann", "older", T0 + 1000);
        const newer = await r.threads.create("ann", "newer", T0 + 2000);
        await r.threads.rename("ann", older.id, "older", T0 + 5000);
        await r.threads.rename("ann", newer.id, "newer", T0 + 5000);
        expect((await r.threads.list("ann")).map((t) => t.id)).toEqual([newer.id, older.id]);
      });

      it("renames and deletes only the owner's thread", async () => {
        const t = await r.threads.create("ann", "mine", T0);
        expect(await r.threads.rename("bob", t.id, "stolen", T0 + 1)).toBe(false);
        expect(await r.threads.delete("bob", t.id)).toBe(false);
        expect((await r.threads.get("ann", t.id))?.title).toBe("mine");
        expect(await r.threads.list("bob")).toEqual([]);
        expect(await r.threads.rename("ann", "missing", "x")).toBe(false);

        expect(await r.threads.delete("ann", t.id)).toBe(true);
        expect(await r.threads.get("ann", t.id)).toBeUndefined();
        expect(await r.threads.delete("ann", t.id)).toBe(false);
      });

      it("deleting a thread cascades to its messages, turns, llm calls and assets", async () => {
        const t = await r.threads.create("ann", "doomed", T0);
        const kept = await r.threads.create("ann", "kept", T0);
        const turn = await r.turns.start("ann", t.id, {}, T0 + 1);
        await r.messages.append("ann", t.id, { role: "user", status: "complete", content: "hi" }, T0 + 2);
        await r.messages.append("ann", kept.id, { role: "user", status: "complete", content: "hi" }, T0 + 2);
        await r.llmCalls.record("ann", t.id, turn.id, call(), T0 + 3);
        const asset = await r.assets.create("ann", {
          threadId: t.id,
          mimeType: "image/png",
          bytes: 3,
          path: "/a",
        });
        for (const table of ["messages", "turns", "llm_calls", "assets"] as const)
          expect(await store.countForThread(table, t.id), table).toBe(1);

        expect(await r.threads.delete("ann", t.id)).toBe(true);
        for (const table of ["messages", "turns", "llm_calls", "assets"] as const)
          expect(await store.countForThread(table, t.id), table).toBe(0);
        expect(await r.turns.get("ann", turn.id)).toBeUndefined();
        expect(await r.llmCalls.forTurn("ann", turn.id)).toEqual([]);
        expect(await r.assets.get("ann", asset.id)).toBeUndefined();
        await expect(r.messages.list("ann", t.id)).rejects.toMatchObject({ code: "not_found" });
        expect(await r.messages.list("ann", kept.id)).toHaveLength(1);
      });
    });

    describe("tool grants", () => {
      it("grants a tool for one thread of its owner, once, and goes with the thread", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const other = await r.threads.create("ann", "other", T0);
        expect(await r.toolGrants.has("ann", t.id, "write_note")).toBe(false);
        await r.toolGrants.grant("ann", t.id, "write_note", T0 + 1);
        await r.toolGrants.grant("ann", t.id, "write_note", T0 + 2);
        expect(await r.toolGrants.has("ann", t.id, "write_note")).toBe(true);
        expect(await store.countForThread("tool_grants", t.id)).toBe(1);
        // Another tool, another thread, another user: not granted.
        expect(await r.toolGrants.has("ann", t.id, "read_note")).toBe(false);
        expect(await r.toolGrants.has("ann", other.id, "write_note")).toBe(false);
        expect(await r.toolGrants.has("bob", t.id, "write_note")).toBe(false);
        // Nobody grants on a thread that is not theirs.
        await expect(r.toolGrants.grant("bob", other.id, "write_note")).rejects.toMatchObject({
          code: "not_found",
        });
        await expect(r.toolGrants.grant("ann", "missing", "write_note")).rejects.toMatchObject({
          code: "not_found",
        });
        expect(await store.countForThread("tool_grants", other.id)).toBe(0);

        expect(await r.threads.delete("ann", t.id)).toBe(true);
        expect(await store.countForThread("tool_grants", t.id)).toBe(0);
      });
    });

    describe("messages", () => {
      it("numbers rows 1, 2, 3 per thread, lists them in order and moves the thread's updatedAt", async () => {
        const a = await r.threads.create("ann", "a", T0);
        const b = await r.threads.create("ann", "b", T0);
        const first = await r.messages.append(
          "ann",
          a.id,
          { role: "user", status: "complete", content: "one" },
          T0 + 10,
        );
        await r.messages.append("ann", b.id, { role: "user", status: "complete", content: "other" }, T0 + 11);
        const second = await r.messages.append(
          "ann",
          a.id,
          { role: "assistant", status: "complete", content: "two" },
          T0 + 12,
        );
        const third = await r.messages.append(
          "ann",
          a.id,
          { role: "user", status: "complete", content: "three" },
          T0 + 13,
        );
        expect(await store.seqs(a.id)).toEqual([1, 2, 3]);
        expect(await store.seqs(b.id)).toEqual([1]);
        expect((await r.messages.list("ann", a.id)).map((m) => m.id)).toEqual([
          first.id,
          second.id,
          third.id,
        ]);
        expect(first).toEqual({
          id: first.id,
          thread_id: a.id,
          role: "user",
          content: "one",
          status: "complete",
          created_at: new Date(T0 + 10).toISOString(),
          parent_message_id: null,
        });
        expect((await r.threads.get("ann", a.id))?.updatedAt).toBe(T0 + 13);
        expect((await r.threads.list("ann")).map((t) => t.id)).toEqual([a.id, b.id]);
      });

      it("round-trips every column, JSON ones exactly (content parts, tool_calls, execution_tree, usage)", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const turn = await r.turns.start("ann", t.id, {}, T0);
        const user = await r.messages.append(
          "ann",
          t.id,
          {
            role: "user",
            status: "complete",
            turnId: turn.id,
            content: [
              { type: "text", text: 'look: ünïcode ✓ "quoted"\n' },
              { type: "image", data: "aGk=", mime_type: "image/png" },
            ],
          },
          T0 + 1,
        );
        const assistant = await r.messages.append(
          "ann",
          t.id,
          {
            role: "assistant",
            status: "complete",
            turnId: turn.id,
            content: null,
            toolCalls,
            provider: "openai",
            model: "gpt-x",
          },
          T0 + 2,
        );
        const tool = await r.messages.append(
          "ann",
          t.id,
          {
            role: "tool",
            status: "complete",
            turnId: turn.id,
            toolCallId: "call_1",
            isError: true,
            content: "boom",
          },
          T0 + 3,
        );
        const tool2 = await r.messages.append(
          "ann",
          t.id,
          { role: "tool", status: "complete", toolCallId: "call_2", isError: false, content: "[]" },
          T0 + 4,
        );
        const final = await r.messages.append(
          "ann",
          t.id,
          {
            role: "assistant",
            status: "budget_exceeded",
            turnId: turn.id,
            content: "done",
            executionTree,
            usage,
          },
          T0 + 5,
        );
        expect(assistant).toMatchObject({
          content: null,
          tool_calls: toolCalls,
          provider: "openai",
          model: "gpt-x",
        });
        expect(tool).toMatchObject({ tool_call_id: "call_1", is_error: true });
        expect(final).toMatchObject({ execution_tree: executionTree, usage, status: "budget_exceeded" });
        expect(await r.messages.list("ann", t.id)).toEqual([user, assistant, tool, tool2, final]);
      });

      it("a message stored without is_error reads back without it, and its null JSON columns are NULL", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const stored = await r.messages.append(
          "ann",
          t.id,
          { role: "user", status: "complete", content: "x" },
          T0,
        );
        expect(stored).not.toHaveProperty("is_error");
        expect(await r.messages.list("ann", t.id)).toEqual([stored]);
        // Stored as NULL, not as 0 or the text "null" (what a prepared insert's encoders made of a null).
        for (const column of ["is_error", "tool_calls", "tool_call_id", "usage", "execution_tree"] as const)
          expect(await store.countNulls("messages", t.id, column)).toBe(1);
      });

      it("another user's thread is not_found for list and append, and nothing is stored", async () => {
        const t = await r.threads.create("ann", "t", T0);
        await r.messages.append("ann", t.id, { role: "user", status: "complete", content: "mine" }, T0 + 1);
        await expect(r.messages.list("bob", t.id)).rejects.toMatchObject({ code: "not_found" });
        await expect(
          r.messages.append("bob", t.id, { role: "user", status: "complete", content: "theirs" }, T0 + 2),
        ).rejects.toMatchObject({ name: "NotFoundError", code: "not_found" });
        await expect(r.messages.list("ann", "missing")).rejects.toMatchObject({ code: "not_found" });
        await expect(
          r.messages.append("ann", "missing", { role: "user", status: "complete", content: "x" }),
        ).rejects.toMatchObject({ code: "not_found" });
        expect(await store.seqs(t.id)).toEqual([1]);
        expect((await r.threads.get("ann", t.id))?.updatedAt).toBe(T0 + 1);
      });

      it("concurrent appends to one thread from two handles get distinct, gapless seqs", async () => {
        const t = await r.threads.create("ann", "busy", T0);
        const twin = await store.openTwin();
        const perHandle = 25;
        const appends = [r, twin].flatMap((repos, h) =>
          Array.from({ length: perHandle }, (_, i) =>
            repos.messages.append(
              "ann",
              t.id,
              { role: "user", status: "complete", content: `h${h}-${i}` },
              T0 + i,
            ),
          ),
        );
        const stored = await Promise.all(appends);
        expect(await store.seqs(t.id)).toEqual(Array.from({ length: 2 * perHandle }, (_, i) => i + 1));
        const listed = await r.messages.list("ann", t.id);
        expect(listed).toHaveLength(2 * perHandle);
        expect(new Set(listed.map((m) => m.id))).toEqual(new Set(stored.map((m) => m.id)));
      });
    });

    describe("branches", () => {
      const say = (content: string, extra: Partial<NewMessage> = {}): NewMessage => ({
        role: "user",
        status: "complete",
        content,
        ...extra,
      });
      const ids = (messages: { id: string }[]) => messages.map((m) => m.id);

      it("appends chain each row to the one before and move the current leaf", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const a = await r.messages.append("ann", t.id, say("a"), T0 + 1);
        const b = await r.messages.append("ann", t.id, say("b", { role: "assistant" }), T0 + 2);
        const c = await r.messages.append("ann", t.id, say("c"), T0 + 3);
        expect([a.parent_message_id, b.parent_message_id, c.parent_message_id]).toEqual([null, a.id, b.id]);
        expect((await r.threads.get("ann", t.id))?.currentLeafId).toBe(c.id);
        const branch = await r.messages.branch("ann", t.id);
        expect(branch?.leafId).toBe(c.id);
        expect(branch?.ids).toEqual([a.id, b.id, c.id]);
        // A linear thread reads exactly as list does: no sibling_ids anywhere.
        expect(branch?.messages).toEqual(await r.messages.list("ann", t.id));
        expect(await r.messages.get("ann", t.id, b.id)).toEqual(b);
        expect(await r.messages.get("bob", t.id, b.id)).toBeUndefined();
        expect(await r.messages.get("ann", t.id, "missing")).toBeUndefined();
        const listed = await r.threads.list("ann");
        expect(listed[0]?.current_leaf_id).toBe(c.id);
        expect(listed[0]?.queued).toBeUndefined();
      });

      it("an empty thread's branch has no leaf and no rows", async () => {
        const t = await r.threads.create("ann", "t", T0);
        expect(await r.messages.branch("ann", t.id)).toEqual({ leafId: null, ids: [], messages: [] });
        expect((await r.threads.list("ann"))[0]?.current_leaf_id).toBeUndefined();
      });

      it("an explicit parent makes a sibling, moves the leaf, and branch() follows leafId and afterId", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const u1 = await r.messages.append("ann", t.id, say("u1"), T0 + 1);
        const a1 = await r.messages.append("ann", t.id, say("a1", { role: "assistant" }), T0 + 2);
        const u2 = await r.messages.append("ann", t.id, say("u2"), T0 + 3);
        const a2 = await r.messages.append("ann", t.id, say("a2", { role: "assistant" }), T0 + 4);
        // An edit of u2: a new user message after a1, then its answer.
        const u2b = await r.messages.append(
          "ann",
          t.id,
          say("u2b", { parentId: a1.id, id: "edit-1" }),
          T0 + 5,
        );
        expect(u2b.id).toBe("edit-1");
        expect(u2b.parent_message_id).toBe(a1.id);
        expect((await r.threads.get("ann", t.id))?.currentLeafId).toBe(u2b.id);
        const a2b = await r.messages.append("ann", t.id, say("a2b", { role: "assistant" }), T0 + 6);
        expect(a2b.parent_message_id).toBe(u2b.id);

        const current = await r.messages.branch("ann", t.id);
        expect(current?.leafId).toBe(a2b.id);
        expect(current?.ids).toEqual([u1.id, a1.id, u2b.id, a2b.id]);
        expect(current?.messages.map((m) => m.sibling_ids)).toEqual([
          undefined,
          undefined,
          [u2.id, u2b.id],
          undefined,
        ]);
        expect(current?.messages[2]).toEqual({ ...u2b, sibling_ids: [u2.id, u2b.id] });

        // leafId: the branch through u2 down to its newest descendant leaf.
        const old = await r.messages.branch("ann", t.id, { leafId: u2.id });
        expect(old?.leafId).toBe(a2.id);
        expect(ids(old?.messages ?? [])).toEqual([u1.id, a1.id, u2.id, a2.id]);
        expect(old?.messages[2]?.sibling_ids).toEqual([u2.id, u2b.id]);
        // leafId above the fork: the newest leaf under it, on the newest branch.
        expect((await r.messages.branch("ann", t.id, { leafId: u1.id }))?.leafId).toBe(a2b.id);
        // afterId on the path: only the rows after it (ids still the whole path).
        const after = await r.messages.branch("ann", t.id, { afterId: a1.id });
        expect(after?.ids).toEqual([u1.id, a1.id, u2b.id, a2b.id]);
        expect(ids(after?.messages ?? [])).toEqual([u2b.id, a2b.id]);
        // afterId not on the path: the whole path.
        const off = await r.messages.branch("ann", t.id, { afterId: u2.id });
        expect(ids(off?.messages ?? [])).toEqual([u1.id, a1.id, u2b.id, a2b.id]);
        expect(await r.messages.branch("ann", t.id, { leafId: "missing" })).toBeUndefined();
        await expect(r.messages.branch("bob", t.id)).rejects.toMatchObject({ code: "not_found" });
        // list still holds every branch's rows, in seq order.
        expect(ids(await r.messages.list("ann", t.id))).toEqual([u1.id, a1.id, u2.id, a2.id, u2b.id, a2b.id]);
      });

      it("a null parent makes a new first message; sibling_ids at the root too", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const u1 = await r.messages.append("ann", t.id, say("u1"), T0 + 1);
        await r.messages.append("ann", t.id, say("a1", { role: "assistant" }), T0 + 2);
        const v1 = await r.messages.append("ann", t.id, say("v1", { parentId: null }), T0 + 3);
        expect(v1.parent_message_id).toBeNull();
        const branch = await r.messages.branch("ann", t.id);
        expect(branch?.ids).toEqual([v1.id]);
        expect(branch?.messages[0]?.sibling_ids).toEqual([u1.id, v1.id]);
      });

      it("setCurrentLeaf and newestLeaf, only on the user's thread and its own messages", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const other = await r.threads.create("ann", "other", T0);
        const elsewhere = await r.messages.append("ann", other.id, say("x"), T0 + 1);
        const u1 = await r.messages.append("ann", t.id, say("u1"), T0 + 1);
        const a1 = await r.messages.append("ann", t.id, say("a1", { role: "assistant" }), T0 + 2);
        const a1b = await r.messages.append(
          "ann",
          t.id,
          say("a1b", { role: "assistant", parentId: u1.id }),
          T0 + 3,
        );
        expect(await r.messages.newestLeaf("ann", t.id, u1.id)).toBe(a1b.id);
        expect(await r.messages.newestLeaf("ann", t.id, a1.id)).toBe(a1.id);
        expect(await r.messages.newestLeaf("ann", t.id, "missing")).toBeUndefined();
        expect(await r.messages.newestLeaf("bob", t.id, u1.id)).toBeUndefined();
        expect(await r.messages.newestLeaf("ann", t.id, elsewhere.id)).toBeUndefined();

        expect(await r.messages.setCurrentLeaf("ann", t.id, a1.id, T0 + 10)).toBe(true);
        expect(await r.threads.get("ann", t.id)).toMatchObject({ currentLeafId: a1.id, updatedAt: T0 + 10 });
        expect((await r.messages.branch("ann", t.id))?.ids).toEqual([u1.id, a1.id]);
        // The next append follows the leaf now current.
        const u2 = await r.messages.append("ann", t.id, say("u2"), T0 + 11);
        expect(u2.parent_message_id).toBe(a1.id);
        expect(await r.messages.setCurrentLeaf("bob", t.id, a1.id)).toBe(false);
        expect(await r.messages.setCurrentLeaf("ann", t.id, "missing")).toBe(false);
        expect(await r.messages.setCurrentLeaf("ann", t.id, elsewhere.id)).toBe(false);
        expect((await r.threads.get("ann", t.id))?.currentLeafId).toBe(u2.id);
        expect(await r.messages.setCurrentLeaf("ann", t.id, null, T0 + 12)).toBe(true);
        expect((await r.threads.get("ann", t.id))?.currentLeafId).toBeNull();
      });
    });

    describe("queued messages", () => {
      const queued = (id: string, mode: "queue" | "steer" | "interrupt", text = id): NewQueuedMessage => ({
        id,
        mode,
        data: { content: text, model: "m", parent_message_id: null },
        requestId: `req-${id}`,
      });

      it("queues in arrival order with an interrupt first, with positions, up to the bound", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const q1 = await r.queuedMessages.enqueue("ann", t.id, queued("q1", "queue"), 4, T0 + 1);
        expect(q1).toEqual({
          row: {
            id: "q1",
            threadId: t.id,
            userId: "ann",
            mode: "queue",
            priority: 1,
            seq: 1,
            data: { content: "q1", model: "m", parent_message_id: null },
            requestId: "req-q1",
            createdAt: T0 + 1,
          },
          position: 1,
        });
        expect(await r.queuedMessages.enqueue("ann", t.id, queued("s1", "steer"), 4, T0 + 2)).toMatchObject({
          position: 2,
        });
        expect(
          await r.queuedMessages.enqueue("ann", t.id, queued("i1", "interrupt"), 4, T0 + 3),
        ).toMatchObject({ row: { priority: 0, seq: 3 }, position: 1 });
        expect(
          await r.queuedMessages.enqueue(
            "ann",
            t.id,
            { id: "q2", mode: "queue", data: { content: [{ type: "text", text: "parts" }] } },
            4,
            T0 + 4,
          ),
        ).toMatchObject({ row: { requestId: null }, position: 4 });
        expect(await r.queuedMessages.enqueue("ann", t.id, queued("q3", "queue"), 4, T0 + 5)).toBe("full");
        expect(await r.queuedMessages.enqueue("ann", t.id, queued("i2", "interrupt"), 4, T0 + 5)).toBe(
          "full",
        );
        expect((await r.queuedMessages.list("ann", t.id)).map((q) => q.id)).toEqual(["i1", "q1", "s1", "q2"]);
        expect(await r.queuedMessages.count("ann", t.id)).toBe(4);
        expect(await r.queuedMessages.count("bob", t.id)).toBe(0);
        expect(await r.queuedMessages.list("bob", t.id)).toEqual([]);
        expect((await r.threads.list("ann"))[0]?.queued).toBe(4);
        await expect(
          r.queuedMessages.enqueue("bob", t.id, queued("b1", "queue"), 4, T0 + 6),
        ).rejects.toMatchObject({ code: "not_found" });
        await expect(
          r.queuedMessages.enqueue("ann", "missing", queued("b2", "queue"), 4, T0 + 6),
        ).rejects.toMatchObject({ code: "not_found" });
        expect(await r.queuedMessages.count("ann", t.id)).toBe(4);
      });

      it("removes one (only the owner's), takes the steers, restores, and goes with the thread", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const other = await r.threads.create("ann", "other", T0);
        await r.queuedMessages.enqueue("ann", t.id, queued("q1", "queue"), 10, T0 + 1);
        await r.queuedMessages.enqueue("ann", t.id, queued("s1", "steer"), 10, T0 + 2);
        await r.queuedMessages.enqueue("ann", t.id, queued("q2", "queue"), 10, T0 + 3);
        await r.queuedMessages.enqueue("ann", t.id, queued("s2", "steer"), 10, T0 + 4);
        await r.queuedMessages.enqueue("ann", other.id, queued("o1", "steer"), 10, T0 + 5);
        expect(await r.queuedMessages.remove("bob", t.id, "q1")).toBe(false);
        expect(await r.queuedMessages.remove("ann", other.id, "q1")).toBe(false);
        const [removed] = await r.queuedMessages.list("ann", t.id);
        expect(await r.queuedMessages.remove("ann", t.id, "q1")).toBe(true);
        expect(await r.queuedMessages.remove("ann", t.id, "q1")).toBe(false);

        expect(await r.queuedMessages.takeSteers("bob", t.id)).toEqual([]);
        expect((await r.queuedMessages.takeSteers("ann", t.id)).map((q) => q.id)).toEqual(["s1", "s2"]);
        expect(await r.queuedMessages.takeSteers("ann", t.id)).toEqual([]);
        expect((await r.queuedMessages.list("ann", t.id)).map((q) => q.id)).toEqual(["q2"]);

        // Its start failed: back where it was, first again.
        await r.queuedMessages.restore(removed!);
        await r.queuedMessages.restore(removed!);
        expect(await r.queuedMessages.list("ann", t.id)).toEqual([
          removed,
          expect.objectContaining({ id: "q2" }),
        ]);

        expect(
          (await r.queuedMessages.queuedThreads()).sort((a, b) => a.threadId.localeCompare(b.threadId)),
        ).toEqual(
          [
            { userId: "ann", threadId: t.id },
            { userId: "ann", threadId: other.id },
          ].sort((a, b) => a.threadId.localeCompare(b.threadId)),
        );
        expect(await r.threads.delete("ann", t.id)).toBe(true);
        expect(await store.countForThread("queued_messages", t.id)).toBe(0);
        expect(await r.queuedMessages.queuedThreads()).toEqual([{ userId: "ann", threadId: other.id }]);
        // A restore after its thread is gone stores nothing.
        await r.queuedMessages.restore(removed!);
        expect(await store.countForThread("queued_messages", t.id)).toBe(0);
      });

      it("two concurrent takers never both get a steer", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const twin = await store.openTwin();
        for (let i = 0; i < 6; i++)
          await r.queuedMessages.enqueue("ann", t.id, queued(`s${i}`, "steer"), 10, T0 + i);
        const [x, y] = await Promise.all([
          r.queuedMessages.takeSteers("ann", t.id),
          twin.queuedMessages.takeSteers("ann", t.id),
        ]);
        const taken = [...x, ...y].map((q) => q.id).sort();
        expect(taken).toEqual(["s0", "s1", "s2", "s3", "s4", "s5"]);
      });

      it("concurrent enqueues from two handles never pass the bound", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const twin = await store.openTwin();
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 ? twin : r).queuedMessages.enqueue("ann", t.id, queued(`c${i}`, "queue"), 5, T0 + i),
          ),
        );
        expect(results.filter((res) => res === "full")).toHaveLength(3);
        const rows = await r.queuedMessages.list("ann", t.id);
        expect(rows).toHaveLength(5);
        expect(rows.map((q) => q.seq)).toEqual([1, 2, 3, 4, 5]);
      });
    });

    describe("summaries", () => {
      it("serve every branch through their message, the latest on the path, never one off it", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const m = async (content: string, parentId?: string) =>
          (
            await r.messages.append(
              "ann",
              t.id,
              { role: "user", status: "complete", content, ...(parentId !== undefined && { parentId }) },
              T0,
            )
          ).id;
        const a = await m("a");
        const b = await m("b");
        const c = await m("c");
        const c2 = await m("c2", b);
        await r.summaries.put(
          "ann",
          t.id,
          { summary: "through a", throughMessageId: a, messageCount: 1 },
          T0,
        );
        await r.summaries.put(
          "ann",
          t.id,
          { summary: "through c", throughMessageId: c, messageCount: 3 },
          T0,
        );
        expect(await r.summaries.get("ann", t.id, [a, b, c])).toEqual({
          summary: "through c",
          throughMessageId: c,
          messageCount: 3,
        });
        // The other branch shares a, never c.
        expect((await r.summaries.get("ann", t.id, [a, b, c2]))?.summary).toBe("through a");
        expect(await r.summaries.get("ann", t.id, [c2])).toBeUndefined();
        expect(await r.summaries.get("ann", t.id, [])).toBeUndefined();
        expect(await r.summaries.get("bob", t.id, [a, b, c])).toBeUndefined();
        // Replaced through the same message, kept apart through another.
        await r.summaries.put("ann", t.id, { summary: "a again", throughMessageId: a, messageCount: 1 }, T0);
        expect((await r.summaries.get("ann", t.id, [a, b, c2]))?.summary).toBe("a again");
        expect((await r.summaries.get("ann", t.id, [a, b, c]))?.summary).toBe("through c");
        await expect(
          r.summaries.put("bob", t.id, { summary: "x", throughMessageId: a, messageCount: 1 }, T0),
        ).rejects.toMatchObject({ code: "not_found" });
        expect(await store.countForThread("thread_summaries", t.id)).toBe(2);
        await r.threads.delete("ann", t.id);
        expect(await store.countForThread("thread_summaries", t.id)).toBe(0);
      });
    });

    describe("turns", () => {
      it("starts a running turn, gets it only for the owner, and finds the latest of a thread", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const first = await r.turns.start("ann", t.id, {}, T0 + 1);
        const second = await r.turns.start(
          "ann",
          t.id,
          { id: "turn-claimed", provider: "openai", model: "gpt-x", requestId: "req-7" },
          T0 + 2,
        );
        expect(second).toEqual({
          id: "turn-claimed",
          threadId: t.id,
          userId: "ann",
          status: "running",
          usage: null,
          error: null,
          suspendedState: null,
          startedAt: T0 + 2,
          endedAt: null,
          provider: "openai",
          model: "gpt-x",
          requestId: "req-7",
          checkpoint: null,
          recoveries: 0,
        });
        expect(first.requestId).toBeNull();
        expect(await r.turns.get("ann", first.id)).toEqual(first);
        expect(await r.turns.get("ann", second.id)).toEqual(second);
        expect(await r.turns.get("bob", second.id)).toBeUndefined();
        expect(await r.turns.latest("ann", t.id)).toEqual(second);
        expect(await r.turns.latest("bob", t.id)).toBeUndefined();
        expect(await r.turns.latest("ann", "missing")).toBeUndefined();
      });

      it("stores a chat turn's start record with its row, read back as its checkpoint", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const checkpoint = {
          version: 1 as const,
          start: {
            provider: "openai",
            model: "gpt-x",
            chatContext: { kind: "workflow" as const, workflow_id: "w1" },
            memoryEnabled: false,
            planId: "plan-1",
          },
        };
        const row = await r.turns.start(
          "ann",
          t.id,
          { provider: "openai", model: "gpt-x", checkpoint },
          T0 + 1,
        );
        const stored = await r.turns.get("ann", row.id);
        expect(stored?.checkpoint).toEqual(checkpoint);
        expect(readTurnStart(stored?.checkpoint)).toEqual(checkpoint.start);
        // Not a loop checkpoint: continuing from a step finds none.
        expect(readTurnCheckpoint(stored?.checkpoint)).toBeUndefined();
        expect(await store.countNulls("turns", t.id, "checkpoint")).toBe(0);
      });

      it("a turn started without a start record or who answers stores its empty columns as NULL", async () => {
        const t = await r.threads.create("ann", "t", T0);
        await r.turns.start("ann", t.id, {}, T0 + 1);
        // Not the text "null" (what a prepared insert's JSON encoder made of a null checkpoint).
        for (const column of [
          "usage",
          "error",
          "suspended_state",
          "ended_at",
          "provider",
          "model",
          "request_id",
          "checkpoint",
        ] as const)
          expect(await store.countNulls("turns", t.id, column)).toBe(1);
      });

      it("finds the user's latest turn by the request_id that started it, never another user's", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const u = await r.threads.create("ann", "u", T0);
        await r.turns.start("ann", t.id, { id: "older", requestId: "same" }, T0 + 1);
        await r.turns.start("ann", u.id, { id: "newer", requestId: "same" }, T0 + 2);
        expect((await r.turns.findByRequestId("ann", "same"))?.id).toBe("newer");
        expect(await r.turns.findByRequestId("bob", "same")).toBeUndefined();
        expect(await r.turns.findByRequestId("ann", "other")).toBeUndefined();
      });

      it("updates a turn (suspension JSON round trip), lists waiting threads, and is scoped by user", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const other = await r.threads.create("ann", "other", T0);
        const turn = await r.turns.start("ann", t.id, {}, T0 + 1);
        expect(await r.turns.waitingThreads("ann")).toEqual([]);

        expect(
          await r.turns.update("ann", turn.id, {
            status: "waiting_user",
            suspendedState: suspended,
          }),
        ).toBe(true);
        expect(await r.turns.update("bob", turn.id, { status: "stopped" })).toBe(false);
        expect(await r.turns.update("ann", "missing", { status: "stopped" })).toBe(false);
        expect(await r.turns.get("ann", turn.id)).toEqual({
          ...turn,
          status: "waiting_user",
          suspendedState: suspended,
        });
        // A second waiting turn on the same thread still names it once.
        const again = await r.turns.start("ann", t.id, {}, T0 + 2);
        await r.turns.update("ann", again.id, { status: "waiting_user" });
        await r.turns.start("ann", other.id, {}, T0 + 3);
        expect(await r.turns.waitingThreads("ann")).toEqual([t.id]);
        expect(await r.turns.waitingThreads("bob")).toEqual([]);

        // Fields left out stay as they were; null clears.
        expect(await r.turns.update("ann", turn.id, { usage, error: "e" })).toBe(true);
        expect(await r.turns.get("ann", turn.id)).toMatchObject({
          suspendedState: suspended,
          usage,
          error: "e",
        });
        expect(
          await r.turns.update("ann", turn.id, { suspendedState: null, usage: null, endedAt: T0 + 9 }),
        ).toBe(true);
        expect(await r.turns.get("ann", turn.id)).toMatchObject({
          status: "waiting_user",
          suspendedState: null,
          usage: null,
          error: "e",
          endedAt: T0 + 9,
        });
      });

      it("end stores status, usage and error and clears the suspension, only for the owner", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const turn = await r.turns.start("ann", t.id, {}, T0 + 1);
        await r.turns.update("ann", turn.id, { status: "waiting_user", suspendedState: suspended });
        await r.turns.end("bob", turn.id, { status: "stopped", usage, error: "no", endedAt: T0 + 5 });
        expect(await r.turns.get("ann", turn.id)).toMatchObject({
          status: "waiting_user",
          suspendedState: suspended,
        });

        await r.turns.end("ann", turn.id, {
          status: "error",
          usage,
          error: "provider failed",
          endedAt: T0 + 6,
        });
        expect(await r.turns.get("ann", turn.id)).toEqual({
          ...turn,
          status: "error",
          usage,
          error: "provider failed",
          suspendedState: null,
          endedAt: T0 + 6,
        });
        expect(await r.turns.waitingThreads("ann")).toEqual([]);
      });

      it("listRunning returns every user's running turns, oldest first", async () => {
        const a = await r.threads.create("ann", "a", T0);
        const b = await r.threads.create("bob", "b", T0);
        const late = await r.turns.start("ann", a.id, {}, T0 + 30);
        const early = await r.turns.start("bob", b.id, {}, T0 + 10);
        const waiting = await r.turns.start("ann", a.id, {}, T0 + 20);
        const ended = await r.turns.start("bob", b.id, {}, T0 + 5);
        await r.turns.update("ann", waiting.id, { status: "waiting_user" });
        await r.turns.end("bob", ended.id, { status: "complete", usage, error: null, endedAt: T0 + 6 });
        expect(await r.turns.listRunning()).toEqual([early, late]);
      });

      it("listRunningKeys returns only the id, thread and user of every running turn, oldest first", async () => {
        const a = await r.threads.create("ann", "a", T0);
        const b = await r.threads.create("bob", "b", T0);
        const checkpoint = {
          version: 1 as const,
          start: { provider: "p", model: "m", chatContext: { kind: "thread" as const }, memoryEnabled: true },
        };
        const late = await r.turns.start("ann", a.id, { checkpoint }, T0 + 30);
        const early = await r.turns.start("bob", b.id, {}, T0 + 10);
        const waiting = await r.turns.start("ann", a.id, {}, T0 + 20);
        const ended = await r.turns.start("bob", b.id, {}, T0 + 5);
        await r.turns.update("ann", waiting.id, { status: "waiting_user" });
        await r.turns.end("bob", ended.id, { status: "complete", usage, error: null, endedAt: T0 + 6 });
        // Strict: any other key, even one holding undefined (the checkpoint above all), fails it.
        expect(await r.turns.listRunningKeys()).toStrictEqual([
          { id: early.id, threadId: b.id, userId: "bob" },
          { id: late.id, threadId: a.id, userId: "ann" },
        ]);
      });
    });

    describe("llm calls", () => {
      it("calls of many turns recorded at once are each stored; one whose turn is gone fails alone", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const turns = await Promise.all(
          Array.from({ length: 20 }, (_, i) => r.turns.start("ann", t.id, {}, T0 + i)),
        );
        const outcomes = await Promise.allSettled([
          ...turns.map((turn, i) =>
            r.llmCalls.record("ann", t.id, turn.id, call({ inputTokens: i }), T0 + i),
          ),
          r.llmCalls.record("ann", t.id, "no-such-turn", call(), T0),
        ]);
        expect(outcomes.slice(0, 20).every((o) => o.status === "fulfilled")).toBe(true);
        expect(outcomes[20]?.status).toBe("rejected");
        for (const [i, turn] of turns.entries())
          expect((await r.llmCalls.forTurn("ann", turn.id)).map((c) => c.inputTokens)).toEqual([i]);
      });

      it("records more calls at once than one statement takes parameters for", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const turn = await r.turns.start("ann", t.id, {}, T0);
        await Promise.all(
          Array.from({ length: 4_000 }, (_, i) =>
            r.llmCalls.record("ann", t.id, turn.id, call({ inputTokens: i }), T0 + i),
          ),
        );
        const calls = await r.llmCalls.forTurn("ann", turn.id);
        expect(calls.map((c) => c.inputTokens)).toEqual(Array.from({ length: 4_000 }, (_, i) => i));
      });

      it("records calls and reads a turn's oldest first, only for the owner", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const turn = await r.turns.start("ann", t.id, {}, T0);
        const other = await r.turns.start("ann", t.id, {}, T0 + 1);
        await r.llmCalls.record(
          "ann",
          t.id,
          turn.id,
          call({ depth: 2, parentId: "sub-1", error: "rate limited" }),
          T0 + 200,
        );
        await r.llmCalls.record("ann", t.id, turn.id, call({ costKnown: false, costUsd: 0 }), T0 + 100);
        await r.llmCalls.record("ann", t.id, other.id, call(), T0 + 150);
        const calls = await r.llmCalls.forTurn("ann", turn.id);
        expect(calls).toEqual([
          {
            id: expect.any(String),
            turnId: turn.id,
            threadId: t.id,
            userId: "ann",
            provider: "openai",
            model: "gpt-x",
            operation: "subtask",
            depth: 1,
            parentId: null,
            inputTokens: 100,
            outputTokens: 20,
            cacheReadTokens: 3,
            cacheWriteTokens: 2,
            reasoningTokens: 5,
            costUsd: 0,
            costKnown: false,
            latencyMs: 13,
            error: null,
            createdAt: T0 + 100,
          },
          expect.objectContaining({
            depth: 2,
            parentId: "sub-1",
            costUsd: 0.000123,
            costKnown: true,
            error: "rate limited",
            createdAt: T0 + 200,
          }),
        ]);
        expect(await r.llmCalls.forTurn("bob", turn.id)).toEqual([]);
      });

      it("sums a thread's calls per turn and parent, turns by start, only for the owner", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const later = await r.turns.start("ann", t.id, {}, T0 + 10);
        const first = await r.turns.start("ann", t.id, {}, T0);
        await r.turns.start("ann", t.id, {}, T0 + 20); // no calls: no row
        await r.llmCalls.record("ann", t.id, later.id, call({ costUsd: 0.5 }), T0 + 11);
        await r.llmCalls.record("ann", t.id, first.id, call({ parentId: "sub-1", costUsd: 0.25 }), T0 + 2);
        await r.llmCalls.record("ann", t.id, first.id, call({ costUsd: 0.125 }), T0 + 1);
        await r.llmCalls.record("ann", t.id, first.id, call({ costKnown: false, costUsd: 0 }), T0 + 3);
        // Two operations under one node: a row each, by their first call.
        await r.llmCalls.record(
          "ann",
          t.id,
          first.id,
          call({ parentId: "plan-1", operation: "planner", costUsd: 0.5 }),
          T0 + 4,
        );
        await r.llmCalls.record(
          "ann",
          t.id,
          first.id,
          call({ parentId: "plan-1", operation: "plan_review", costUsd: 0.0625 }),
          T0 + 5,
        );
        expect(await r.llmCalls.costByNode("ann", t.id)).toEqual([
          {
            turnId: first.id,
            parentId: null,
            operation: "subtask",
            inputTokens: 200,
            outputTokens: 40,
            costUsd: 0.125,
            costKnown: false,
            llmCalls: 2,
          },
          {
            turnId: first.id,
            parentId: "sub-1",
            operation: "subtask",
            inputTokens: 100,
            outputTokens: 20,
            costUsd: 0.25,
            costKnown: true,
            llmCalls: 1,
          },
          {
            turnId: first.id,
            parentId: "plan-1",
            operation: "planner",
            inputTokens: 100,
            outputTokens: 20,
            costUsd: 0.5,
            costKnown: true,
            llmCalls: 1,
          },
          {
            turnId: first.id,
            parentId: "plan-1",
            operation: "plan_review",
            inputTokens: 100,
            outputTokens: 20,
            costUsd: 0.0625,
            costKnown: true,
            llmCalls: 1,
          },
          {
            turnId: later.id,
            parentId: null,
            operation: "subtask",
            inputTokens: 100,
            outputTokens: 20,
            costUsd: 0.5,
            costKnown: true,
            llmCalls: 1,
          },
        ]);
        expect(await r.llmCalls.costByNode("bob", t.id)).toEqual([]);
      });

      it("sums a user's spend since a time across threads, and a thread's ever, only for the owner", async () => {
        const t1 = await r.threads.create("ann", "one", T0);
        const t2 = await r.threads.create("ann", "two", T0);
        const a = await r.turns.start("ann", t1.id, {}, T0);
        const b = await r.turns.start("ann", t2.id, {}, T0);
        expect(await r.llmCalls.spend("ann", { since: 0 })).toBe(0);
        await r.llmCalls.record("ann", t1.id, a.id, call({ costUsd: 0.5 }), T0 + 1);
        await r.llmCalls.record("ann", t2.id, b.id, call({ costUsd: 0.25 }), T0 + 100);
        await r.llmCalls.record("ann", t2.id, b.id, call({ costUsd: 0, costKnown: false }), T0 + 200);
        expect(await r.llmCalls.spend("ann", { since: T0 })).toBeCloseTo(0.75, 9);
        // `since` is inclusive: a call at that very millisecond counts.
        expect(await r.llmCalls.spend("ann", { since: T0 + 100 })).toBeCloseTo(0.25, 9);
        expect(await r.llmCalls.spend("ann", { since: T0 + 201 })).toBe(0);
        expect(await r.llmCalls.spend("ann", { threadId: t1.id })).toBeCloseTo(0.5, 9);
        expect(await r.llmCalls.spend("ann", { threadId: t2.id })).toBeCloseTo(0.25, 9);
        expect(await r.llmCalls.spend("bob", { since: 0 })).toBe(0);
        expect(await r.llmCalls.spend("bob", { threadId: t1.id })).toBe(0);
      });
    });

    describe("workflows", () => {
      const graph = {
        nodes: [{ id: "n1", type: "llm", data: { prompt: 'ünï "x"', temperature: 0.7 } }],
        edges: [],
      };

      it("creates, gets for the owner only, and lists most recently updated first", async () => {
        const w1 = await r.workflows.create("ann", "one", graph, T0 + 1);
        const w2 = await r.workflows.create("ann", "two", {}, T0 + 2);
        await r.workflows.create("bob", "bob's", {}, T0 + 3);
        expect(w1).toEqual({
          id: w1.id,
          userId: "ann",
          name: "one",
          graph,
          createdAt: T0 + 1,
          updatedAt: T0 + 1,
        });
        expect(await r.workflows.get("ann", w1.id)).toEqual(w1);
        expect(await r.workflows.get("bob", w1.id)).toBeUndefined();
        expect(await r.workflows.list("ann")).toEqual([w2, w1]);
      });

      it("updates name and/or graph (the rest kept), only for the owner", async () => {
        const w = await r.workflows.create("ann", "one", graph, T0 + 1);
        const other = await r.workflows.create("ann", "two", {}, T0 + 2);
        expect(await r.workflows.update("bob", w.id, { name: "stolen" }, T0 + 3)).toBeUndefined();
        expect(await r.workflows.update("ann", "missing", { name: "x" }, T0 + 3)).toBeUndefined();
        expect(await r.workflows.get("ann", w.id)).toEqual(w);

        const renamed = await r.workflows.update("ann", w.id, { name: "renamed" }, T0 + 4);
        expect(renamed).toEqual({ ...w, name: "renamed", updatedAt: T0 + 4 });
        const regraphed = await r.workflows.update("ann", w.id, { graph: { edges: [["a", "b"]] } }, T0 + 5);
        expect(regraphed).toEqual({
          ...w,
          name: "renamed",
          graph: { edges: [["a", "b"]] },
          updatedAt: T0 + 5,
        });
        expect(await r.workflows.get("ann", w.id)).toEqual(regraphed);
        expect((await r.workflows.list("ann")).map((x) => x.id)).toEqual([w.id, other.id]);
      });

      it("deletes only the owner's workflow", async () => {
        const w = await r.workflows.create("ann", "one", graph, T0);
        expect(await r.workflows.delete("bob", w.id)).toBe(false);
        expect(await r.workflows.delete("ann", w.id)).toBe(true);
        expect(await r.workflows.delete("ann", w.id)).toBe(false);
        expect(await r.workflows.get("ann", w.id)).toBeUndefined();
      });
    });

    describe("assets", () => {
      it("creates under a given or fresh id, gets and lists per thread for the owner only", async () => {
        const t = await r.threads.create("ann", "t", T0);
        const other = await r.threads.create("ann", "other", T0);
        const id = r.assets.newId();
        expect(r.assets.newId()).not.toBe(id);
        const given = await r.assets.create(
          "ann",
          { id, threadId: t.id, mimeType: "audio/mpeg", bytes: 3_000_000_000, path: "/data/a.mp3" },
          T0 + 1,
        );
        const fresh = await r.assets.create(
          "ann",
          { threadId: t.id, mimeType: "image/png", bytes: 10, path: "/b" },
          T0 + 2,
        );
        await r.assets.create(
          "ann",
          { threadId: other.id, mimeType: "image/png", bytes: 1, path: "/c" },
          T0 + 3,
        );
        expect(given).toEqual({
          id,
          userId: "ann",
          threadId: t.id,
          mimeType: "audio/mpeg",
          bytes: 3_000_000_000,
          path: "/data/a.mp3",
          createdAt: T0 + 1,
        });
        expect(await r.assets.get("ann", id)).toEqual(given);
        expect(await r.assets.get("bob", id)).toBeUndefined();
        const listed = await r.assets.listForThread("ann", t.id);
        expect(listed).toHaveLength(2);
        expect(listed).toEqual(expect.arrayContaining([given, fresh]));
        expect(await r.assets.listForThread("bob", t.id)).toEqual([]);
      });
    });

    describe("memories", () => {
      it("sets (upserting), gets, lists keys in byte order, counts and deletes, per user", async () => {
        for (const key of ["b", "é", "Z", "a", "B"]) await r.memories.set("ann", key, `v-${key}`, T0);
        await r.memories.set("ann", "a", "changed", T0 + 1);
        await r.memories.set("bob", "a", "bob's", T0);
        expect(await r.memories.keys("ann")).toEqual(["B", "Z", "a", "b", "é"]);
        expect(await r.memories.get("ann", "a")).toBe("changed");
        expect(await r.memories.get("bob", "a")).toBe("bob's");
        expect(await r.memories.get("bob", "b")).toBeUndefined();
        expect(await r.memories.count("ann")).toBe(5);
        expect(await r.memories.count("bob")).toBe(1);
        expect(await r.memories.count("nobody")).toBe(0);

        expect(await r.memories.delete("bob", "b")).toBe(false);
        expect(await r.memories.delete("ann", "b")).toBe(true);
        expect(await r.memories.delete("ann", "b")).toBe(false);
        expect(await r.memories.keys("ann")).toEqual(["B", "Z", "a", "é"]);
        expect(await r.memories.count("ann")).toBe(4);
        expect(await r.memories.keys("bob")).toEqual(["a"]);
      });

      it("lists entries with values in key order and clears only the user's", async () => {
        await r.memories.set("ann", "b", "two", T0 + 5);
        await r.memories.set("ann", "a", "one", T0);
        await r.memories.set("bob", "a", "bob's", T0);
        expect(await r.memories.list("ann")).toEqual([
          { key: "a", value: "one", updatedAt: T0 },
          { key: "b", value: "two", updatedAt: T0 + 5 },
        ]);
        expect(await r.memories.clear("ann")).toBe(2);
        expect(await r.memories.list("ann")).toEqual([]);
        expect(await r.memories.clear("ann")).toBe(0);
        expect(await r.memories.keys("bob")).toEqual(["a"]);
      });
    });
  });
}

describe.skipIf(skipPostgres)("postgres repositories on a database with a linguistic collation", () => {
  it("still list memory keys in byte order, as SQLite does", async () => {
    const cluster = server!;
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    try {
      await admin.query(
        `CREATE DATABASE agentwire_icu TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`,
      );
    } finally {
      await admin.end();
    }
    const handle = await openPostgres({ url: cluster.url.replace(/\/postgres$/, "/agentwire_icu") });
    try {
      const repos = createPgRepositories(handle.db);
      await repos.users.ensure("ann", T0);
      for (const key of ["b", "é", "Z", "a", "B"]) await repos.memories.set("ann", key, "v", T0);
      // The database's own order differs, so the test would catch a missing COLLATE "C".
      const plain = await handle.pool.query<{ key: string }>("SELECT key FROM memories ORDER BY key");
      expect(plain.rows.map((row) => row.key)).not.toEqual(["B", "Z", "a", "b", "é"]);
      expect(await repos.memories.keys("ann")).toEqual(["B", "Z", "a", "b", "é"]);
    } finally {
      await handle.close();
    }
  });
});
