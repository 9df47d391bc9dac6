import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ScratchpadItem, ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { threadOf } from "./turn-helpers.js";

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

/**
 * The model's script, by the user's last message: it calls scratchpad_update with the ops the test
 * put under that message, then, once the tool result is back, answers with the result it saw.
 */
const opsByPrompt: Record<string, unknown> = {
  plan: [
    { op: "add", kind: "task", title: "Collect the logs" },
    { op: "add", kind: "question", title: "Which region?", details: "eu or us" },
    { op: "add", kind: "assumption", title: "UTC timestamps", related_ids: ["s1"] },
  ],
  progress: [
    { op: "resolve", id: "s1" },
    { op: "discard", id: "s3" },
    { op: "update", id: "s2", details: "eu (answered)" },
  ],
  unknown: [
    { op: "resolve", id: "s2" },
    { op: "resolve", id: "s42" },
  ],
  bad: [{ op: "delete", id: "s1" }],
};

function respond(request: ProviderRequest): ScriptedStep {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: `tool said: ${last.isError ? "ERROR " : ""}${last.content}` };
  const user = [...request.messages].reverse().find((m) => m.role === "user");
  const prompt = typeof user?.content === "string" ? user.content : "";
  return {
    toolCalls: [{ id: `sp_${prompt}`, name: "scratchpad_update", args: { ops: opsByPrompt[prompt] } }],
  };
}

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function getItems(s: ChatTestServer, threadId: string, token?: string): Promise<ScratchpadItem[]> {
  const res = await s.fetch(`/api/threads/${threadId}/scratchpad`, token === undefined ? {} : { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: ScratchpadItem[] }).items;
}

function patches(frames: ServerFrame[]): Frame<"scratchpad_patch">[] {
  return frames.filter((f): f is Frame<"scratchpad_patch"> => f.type === "scratchpad_patch");
}

function toolEnd(frames: ServerFrame[], id: string): Frame<"tool_call_update"> | undefined {
  return frames.find(
    (f): f is Frame<"tool_call_update"> =>
      f.type === "tool_call_update" && f.tool_call_id === id && f.status === "end",
  );
}

function finalText(frames: ServerFrame[]): string {
  const row = frames.filter((f): f is Frame<"message"> => f.type === "message").at(-1)?.message;
  return typeof row?.content === "string" ? row.content : JSON.stringify(row?.content);
}

describe("scratchpad_update through the socket", () => {
  it("sends a patch, stores the items, serves them over HTTP and replays the patch on resume_chat", async () => {
    server = await startChatServer(respond);
    const client = await server.connect();
    client.command("chat_message", { content: "plan" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    const threadId = threadOf(frames);

    const [patch, ...more] = patches(frames);
    expect(more).toEqual([]);
    expect(patch?.items.map((i) => [i.id, i.kind, i.title, i.status])).toEqual([
      ["s1", "task", "Collect the logs", "active"],
      ["s2", "question", "Which region?", "active"],
      ["s3", "assumption", "UTC timestamps", "active"],
    ]);
    expect(patch?.items[1]?.details).toBe("eu or us");
    expect(patch?.items[2]?.related_ids).toEqual(["s1"]);
    // The patch is a frame of the turn: between the tool call's start and end.
    const start = frames.findIndex((f) => f.type === "tool_call_update" && f.status === "start");
    const end = frames.indexOf(toolEnd(frames, "sp_plan") as ServerFrame);
    const at = frames.indexOf(patch as ServerFrame);
    expect(start).toBeLessThan(at);
    expect(at).toBeLessThan(end);
    expect(finalText(frames)).toMatch(/tool said: .*s1.*s2.*s3/);

    expect(await getItems(server, threadId)).toEqual(patch?.items);

    const again = await server.connect();
    again.command("resume_chat", { thread_id: threadId, last_seq: (patch?.seq ?? 0) - 1 });
    const replay = await again.collectUntil((f) => f.type === "chat_resumed");
    expect(replay[0]).toEqual(patch);
    expect(replay.at(-1)).toMatchObject({ type: "chat_resumed", status: "finished" });
  });

  it("resolves, discards and updates in a later turn: the items stay, with their new status", async () => {
    server = await startChatServer(respond);
    const client = await server.connect();
    client.command("chat_message", { content: "plan" });
    const threadId = threadOf(await client.collectUntil(isDone));
    const before = await getItems(server, threadId);

    client.command("chat_message", { thread_id: threadId, content: "progress" });
    const frames = await client.collectUntil(isDone);
    const [patch] = patches(frames);
    expect(patch?.items.map((i) => [i.id, i.status, i.details])).toEqual([
      ["s1", "resolved", undefined],
      ["s2", "active", "eu (answered)"],
      ["s3", "discarded", undefined],
    ]);
    const after = await getItems(server, threadId);
    expect(after.map((i) => [i.id, i.status, i.title])).toEqual([
      ["s1", "resolved", "Collect the logs"],
      ["s2", "active", "Which region?"],
      ["s3", "discarded", "UTC timestamps"],
    ]);
    expect(after[0]?.created_at).toBe(before[0]?.created_at);
    expect(after[2]?.related_ids).toEqual(["s1"]);
    expect(await server.countRows("scratchpad_items")).toBe(3);
  });

  it("gives the model an error result for an unknown id or a bad op, applies nothing, and the turn goes on", async () => {
    server = await startChatServer(respond);
    const client = await server.connect();
    client.command("chat_message", { content: "plan" });
    const threadId = threadOf(await client.collectUntil(isDone));

    for (const prompt of ["unknown", "bad"]) {
      client.command("chat_message", { thread_id: threadId, content: prompt });
      const frames = await client.collectUntil(isDone);
      expectWellFormedTurn(frames, (frames[0] as { seq: number }).seq);
      expect(patches(frames)).toEqual([]);
      expect(toolEnd(frames, `sp_${prompt}`)).toMatchObject({ is_error: true });
      expect(finalText(frames)).toMatch(
        prompt === "unknown"
          ? /tool said: ERROR op 2 \(resolve\): no scratchpad item "s42".*nothing was applied/
          : /tool said: ERROR invalid arguments for scratchpad_update: ops\.0/,
      );
      const turn = await server.repos.turns.latest("local", threadId);
      expect(turn?.status).toBe("complete");
    }
    expect((await getItems(server, threadId)).map((i) => i.status)).toEqual(["active", "active", "active"]);
  });

  it("keeps each thread's scratchpad to its owner: another user gets 404, and their own ids start at s1", async () => {
    server = await startChatServer(respond, { auth: "token" });
    const tokenA = await server.createToken("alice");
    const tokenB = await server.createToken("bob");
    const a = await server.connect({ token: tokenA });
    a.command("chat_message", { content: "plan" });
    const threadA = threadOf(await a.collectUntil(isDone));

    const res = await server.fetch(`/api/threads/${threadA}/scratchpad`, { token: tokenB });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "not_found" });
    expect((await server.fetch("/api/threads/no-such-thread/scratchpad", { token: tokenA })).status).toBe(
      404,
    );
    await expect(
      server.repos.scratchpad.apply("bob", threadA, [{ op: "resolve", id: "s1" }]),
    ).rejects.toMatchObject({
      code: "not_found",
    });

    const b = await server.connect({ token: tokenB });
    b.command("chat_message", { content: "plan" });
    const threadB = threadOf(await b.collectUntil(isDone));
    expect((await getItems(server, threadB, tokenB)).map((i) => i.id)).toEqual(["s1", "s2", "s3"]);
    expect((await getItems(server, threadA, tokenA)).every((i) => i.status === "active")).toBe(true);
    expect(await getItems(server, threadB, tokenB)).not.toEqual(await getItems(server, threadA, tokenA));
  });

  it("serves an empty scratchpad, and concurrent batches on one thread get distinct ids in order", async () => {
    server = await startChatServer(respond);
    await server.repos.users.ensure("local");
    const thread = await server.repos.threads.create("local", "t");
    expect(await getItems(server, thread.id)).toEqual([]);
    const batches = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        server?.repos.scratchpad.apply("local", thread.id, [
          { op: "add", kind: "note", title: `n${i}a` },
          { op: "add", kind: "note", title: `n${i}b` },
        ]),
      ),
    );
    const ids = batches.flatMap((b) => (b ?? []).map((i) => i.id));
    expect(new Set(ids).size).toBe(12);
    const stored = await getItems(server, thread.id);
    expect(stored.map((i) => i.id)).toEqual(Array.from({ length: 12 }, (_, i) => `s${i + 1}`));
    // Each batch's two items are adjacent: a batch is applied as a whole.
    for (const b of batches) expect(Number(b?.[1]?.id.slice(1))).toBe(Number(b?.[0]?.id.slice(1)) + 1);
  });
});
