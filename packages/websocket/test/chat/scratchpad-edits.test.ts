import type { ScratchpadItem, ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { threadOf } from "./turn-helpers.js";

type Patch = Extract<ServerFrame, { type: "scratchpad_patch" }>;

const isPatch = (f: ServerFrame): f is Patch => f.type === "scratchpad_patch";
const addTwo = {
  toolCalls: [
    {
      id: "sp_add",
      name: "scratchpad_update",
      args: {
        ops: [
          { op: "add", kind: "task", title: "Collect the logs", details: "from eu-1" },
          { op: "add", kind: "question", title: "Which region?" },
        ],
      },
    },
  ],
};
const toolEnded = (f: ServerFrame) => f.type === "tool_call_update" && f.status === "end";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function items(s: ChatTestServer, threadId: string, token: string): Promise<ScratchpadItem[]> {
  const res = await s.fetch(`/api/threads/${threadId}/scratchpad`, { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: ScratchpadItem[] }).items;
}

function send(s: ChatTestServer, path: string, token: string, method: string, body?: unknown) {
  return s.fetch(path, {
    method,
    token,
    ...(body !== undefined && {
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  });
}

describe("the user edits and clears the scratchpad over HTTP", () => {
  it("sends each change as a scratchpad_patch of the running turn to the socket following it", async () => {
    const held = gate();
    server = await startChatServer([addTwo, { gate: held.promise, text: "done" }], { auth: "token" });
    const alice = await server.createToken("alice");
    const client = await server.connect({ token: alice });
    client.command("chat_message", { content: "plan" });
    const frames = await client.collectUntil(toolEnded);
    const threadId = threadOf(frames);
    const path = `/api/threads/${threadId}/scratchpad`;

    // The turn is still running (its next model call waits on the gate).
    const edited = await send(server, `${path}/s1`, alice, "PATCH", {
      status: "resolved",
      title: "Logs collected",
    });
    expect(edited.status).toBe(200);
    const { item } = (await edited.json()) as { item: ScratchpadItem };
    expect(item).toMatchObject({ id: "s1", kind: "task", title: "Logs collected", status: "resolved" });
    expect(item.details).toBe("from eu-1");
    frames.push(...(await client.collectUntil(isPatch)));
    expect(frames.filter(isPatch).at(-1)?.items).toEqual([item]);

    const cleared = await send(server, path, alice, "DELETE");
    expect(cleared.status).toBe(204);
    frames.push(...(await client.collectUntil(isPatch)));
    expect(frames.filter(isPatch).at(-1)).toMatchObject({ items: [], cleared: true });
    expect(await items(server, threadId, alice)).toEqual([]);

    held.open();
    frames.push(...(await client.collectUntil(isDone)));
    // The HTTP patches are frames of the turn: numbered in line with it, nothing skipped or doubled.
    expectWellFormedTurn(frames);
    expect(frames.filter(isPatch).map((p) => p.items.map((i) => i.id))).toEqual([["s1", "s2"], ["s1"], []]);

    // Another socket resuming the thread gets them replayed, in order.
    const again = await server.connect({ token: alice });
    again.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const replay = await again.collectUntil((f) => f.type === "chat_resumed");
    expect(replay.filter(isPatch)).toEqual(frames.filter(isPatch));
  });

  it("appends a change made between turns to the thread's log, and the next turn numbers on after it", async () => {
    server = await startChatServer([addTwo, { text: "noted" }, { text: "next" }], { auth: "token" });
    const alice = await server.createToken("alice");
    const client = await server.connect({ token: alice });
    client.command("chat_message", { content: "plan" });
    const turn = await client.collectUntil(isDone);
    const threadId = threadOf(turn);
    const lastSeq = (turn.at(-1) as { seq: number }).seq;

    const res = await send(server, `/api/threads/${threadId}/scratchpad/s2`, alice, "PATCH", {
      kind: "note",
      details: "eu",
    });
    expect(res.status).toBe(200);
    const stored = await items(server, threadId, alice);
    expect(stored.map((i) => [i.id, i.kind, i.details, i.status])).toEqual([
      ["s1", "task", "from eu-1", "active"],
      ["s2", "note", "eu", "active"],
    ]);

    const later = await server.connect({ token: alice });
    later.command("resume_chat", { thread_id: threadId, last_seq: lastSeq });
    const replay = await later.collectUntil((f) => f.type === "chat_resumed");
    expect(replay).toHaveLength(2);
    expect(replay[0]).toMatchObject({ type: "scratchpad_patch", seq: lastSeq + 1, items: [stored[1]] });
    expect(replay[1]).toMatchObject({ type: "chat_resumed", status: "finished", last_seq: lastSeq + 1 });

    client.command("chat_message", { thread_id: threadId, content: "more" });
    const next = await client.collectUntil(isDone);
    expectWellFormedTurn(next, lastSeq + 2);
  });

  it("refuses a bad edit with 400 bad_request and changes nothing; another user's thread is 404", async () => {
    server = await startChatServer([addTwo, { text: "noted" }], { auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const client = await server.connect({ token: alice });
    client.command("chat_message", { content: "plan" });
    const turn = await client.collectUntil(isDone);
    const threadId = threadOf(turn);
    const before = await items(server, threadId, alice);
    const item = `/api/threads/${threadId}/scratchpad/s1`;

    for (const body of [
      {},
      { status: "closed" },
      { kind: "todo" },
      { title: "" },
      { title: "x".repeat(301) },
      { details: "x".repeat(4001) },
      { title: "ok", id: "s9" },
      { title: "a\u0000b" },
      { details: "a\u0000b" },
      "not json",
    ]) {
      const res = await send(server, item, alice, "PATCH", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe("bad_request");
    }
    // A NUL names nothing stored (and would fail a Postgres query): 404, like any missing id.
    for (const [method, path] of [
      ["PATCH", `/api/threads/${threadId}/scratchpad/s%00`],
      ["DELETE", "/api/threads/a%00b/scratchpad"],
      ["GET", "/api/threads/a%00b/plans"],
      ["GET", "/api/threads/a%00b/usage"],
      ["DELETE", "/api/memory/a%00b"],
    ] as const) {
      const res = await send(server, path, alice, method, method === "PATCH" ? { title: "x" } : undefined);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe("not_found");
    }
    const unknown = await send(server, `/api/threads/${threadId}/scratchpad/s42`, alice, "PATCH", {
      title: "x",
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "not_found" });

    const theirs = await send(server, item, bob, "PATCH", { title: "mine now" });
    const missing = await send(server, "/api/threads/nope/scratchpad/s1", bob, "PATCH", {
      title: "mine now",
    });
    const notFound = await missing.json();
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual(notFound);
    const clearTheirs = await send(server, `/api/threads/${threadId}/scratchpad`, bob, "DELETE");
    expect(clearTheirs.status).toBe(404);
    expect(await clearTheirs.json()).toEqual(notFound);

    expect(await items(server, threadId, alice)).toEqual(before);
    // Nothing reached the log either: a resume from the turn's end replays nothing.
    const lastSeq = (turn.at(-1) as { seq: number }).seq;
    client.command("resume_chat", { thread_id: threadId, last_seq: lastSeq });
    expect(await client.collectUntil((f) => f.type === "chat_resumed")).toEqual([
      { type: "chat_resumed", thread_id: threadId, status: "finished", last_seq: lastSeq, replayed: 0 },
    ]);
  });

  it("reopens a closed item, and a clear on a thread without turns stores and sends nothing", async () => {
    server = await startChatServer([addTwo, { text: "noted" }], { auth: "token" });
    const alice = await server.createToken("alice");
    const client = await server.connect({ token: alice });
    client.command("chat_message", { content: "plan" });
    const threadId = threadOf(await client.collectUntil(isDone));
    const item = `/api/threads/${threadId}/scratchpad/s1`;
    await send(server, item, alice, "PATCH", { status: "discarded" });
    const reopened = await send(server, item, alice, "PATCH", { status: "active" });
    expect(((await reopened.json()) as { item: ScratchpadItem }).item.status).toBe("active");

    const empty = await server.repos.threads.create("alice", "Empty");
    expect((await send(server, `/api/threads/${empty.id}/scratchpad`, alice, "DELETE")).status).toBe(204);
    const fresh = await server.connect({ token: alice });
    fresh.command("resume_chat", { thread_id: empty.id, last_seq: 0 });
    expect(await fresh.collectUntil((f) => f.type === "chat_resumed")).toEqual([
      { type: "chat_resumed", thread_id: empty.id, status: "unknown", last_seq: 0, replayed: 0 },
    ]);
  });
});
