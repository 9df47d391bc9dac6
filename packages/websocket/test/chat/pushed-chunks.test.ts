/**
 * The pushed chunk path end to end: the real `openai` client (an OPENAI_COMPAT_ENDPOINTS entry) reads
 * a local server's Chat Completions SSE body with node:http and pushes each text delta; the turn
 * driver takes it straight into the frame log when nothing is queued ahead of it. Through the real
 * socket, on whichever database the run uses, every guarantee of the chunk stream still holds: one
 * frame per delta, order against the tool frames of every node, stop, provider failures, stalls,
 * slow-socket merging and resume.
 */
import type { ServerFrame } from "@agentwire-chat/protocol";
import { expectWellFormedTurn, gate, isDone } from "@agentwire-chat/testkit/chat-harness";
import { type TestClient, type TestServer, withTimeout } from "@agentwire-chat/testkit/harness";
import {
  type ChunkFrame,
  type Completion,
  type OpenAIMock,
  seen,
  startOpenAIChatServer,
  startOpenAIMock,
  textChunks,
} from "@agentwire-chat/testkit/openai-sse-mock";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages, threadOf } from "./turn-helpers.js";

let mock: OpenAIMock | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  await mock?.close();
  server = mock = undefined;
});

type Seqd = ServerFrame & { seq: number; seq_start?: number };

const hasSeq = (f: ServerFrame): f is Seqd => typeof (f as { seq?: unknown }).seq === "number";
const textOf = (frames: readonly ServerFrame[]) =>
  textChunks(frames)
    .map((c) => c.content)
    .join("");
/** Matches the text chunk carrying exactly `content` (deltas are unique within a test). */
const chunkWith =
  (content: string, parentId: string | null = null) =>
  (f: ServerFrame) =>
    f.type === "chunk" && f.done !== true && f.content === content && f.parent_id === parentId;
const rowsOf = async (threadId: string) =>
  (await storedMessages(server as TestServer, threadId)).map((r) => [r.role, r.content, r.status]);
/** The frame types from the turn's final assistant row to its end. */
const tailFromFinalRow = (frames: ServerFrame[]) => {
  const final = finalRow(frames);
  const at = frames.findIndex((f) => f.type === "message" && f.message.id === final.id);
  return frames.slice(at).map((f) => f.type);
};

/** Streams `deltas` one network write each, waiting until `client` has each chunk before the next. */
async function lockstep(
  c: Completion,
  client: () => TestClient,
  deltas: readonly string[],
  parentId: string | null = null,
) {
  for (const d of deltas) {
    await c.text(d);
    await seen(client(), chunkWith(d, parentId), `the chunk ${JSON.stringify(d)}`);
  }
}

describe("pushed chunks over the socket (OpenAI-compatible endpoint)", () => {
  it("a plain streamed answer: one chunk frame per delta in order, contiguous seqs, the stored row the same text, done last", async () => {
    const flavours = (i: number) => [`w${i} `, `"q${i}" `, `é${i}\n`, `😀${i} `, `\\${i}\t`][i % 5] as string;
    const deltas = Array.from({ length: 50 }, (_, i) => flavours(i));
    let client: TestClient | undefined;
    mock = await startOpenAIMock(async (c) => {
      // Half one read per delta (each taken while the driver waits), half in one read.
      await lockstep(c, () => client as TestClient, deltas.slice(0, 25));
      await c.text(...deltas.slice(25));
      await c.finish();
    });
    server = await startOpenAIChatServer(mock);
    client = await server.connect();
    client.command("chat_message", { content: "count to fifty" }, "r1");
    const frames = await client.collectUntil(isDone);
    expect(mock.failures).toEqual([]);
    expectWellFormedTurn(frames);

    const chunks = textChunks(frames);
    expect(chunks.map((c) => c.content)).toEqual(deltas);
    for (const c of chunks) {
      expect(c).toMatchObject({ parent_id: null, depth: 0 });
      expect(c.seq_start).toBeUndefined();
    }
    const first = chunks[0]?.seq ?? 0;
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => first + i));
    const thinking = frames.findIndex((f) => f.type === "agent_state" && f.state === "thinking");
    expect(thinking).toBeGreaterThanOrEqual(0);
    expect(frames.findIndex((f) => f.type === "chunk")).toBeGreaterThan(thinking);
    expect(finalRow(frames)).toMatchObject({
      role: "assistant",
      content: deltas.join(""),
      status: "complete",
    });
    expect(tailFromFinalRow(frames)).toEqual(["message", "usage", "agent_state", "chunk"]);

    const threadId = threadOf(frames);
    expect(await rowsOf(threadId)).toEqual([
      ["user", "count to fifty", "complete"],
      ["assistant", deltas.join(""), "complete"],
    ]);
    expect(mock.completions).toHaveLength(1);
    expect(mock.completions[0]?.body).toMatchObject({ model: "mock-1", stream: true });

    // Every chunk that skipped the generators is in the frame log: a resume from 0 reads the same turn.
    const later = await server.connect();
    later.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const replay = await later.collectUntil((f) => f.type === "chat_resumed");
    expect(replay.slice(0, -1)).toEqual(frames);
    expect(replay.at(-1)).toMatchObject({ status: "finished", replayed: frames.length });
  });

  it("parallel subtasks streamed from the endpoint: each node's start before its chunks, its chunks in order, its end after them; flat sockets get no nested text", async () => {
    const A = Array.from({ length: 12 }, (_, i) => `a${i} `);
    const B = Array.from({ length: 12 }, (_, i) => `b${i} `);
    const burstA = Array.from({ length: 10 }, (_, i) => `A${i} `);
    const burstB = Array.from({ length: 10 }, (_, i) => `B${i} `);
    const flatFollowing = gate();
    const subs = new Map<string, Completion>();
    let nested: TestClient | undefined;
    const nestedClient = () => nested as TestClient;
    mock = await startOpenAIMock(async (c) => {
      if (c.lastUser === "split the work") {
        if (c.toolResults === 0) {
          await flatFollowing.promise;
          await c.text("Split", "ting.");
          await c.toolCalls([
            { id: "sub_a", name: "run_subtask", args: { title: "Task A", instructions: "sub:A" } },
            { id: "sub_b", name: "run_subtask", args: { title: "Task B", instructions: "sub:B" } },
          ]);
          await c.finish("tool_calls");
        } else {
          await c.text("All ", "done.");
          await c.finish();
        }
        return;
      }
      if (c.lastUser !== "sub:A" && c.lastUser !== "sub:B")
        throw new Error(`unexpected request: ${c.lastUser}`);
      subs.set(c.lastUser, c);
      if (subs.size < 2) return;
      // Both subtasks are streaming now: alternate their deltas, each read on its own.
      const a = subs.get("sub:A") as Completion;
      const b = subs.get("sub:B") as Completion;
      for (let i = 0; i < A.length; i++) {
        await lockstep(a, nestedClient, [A[i] as string], "sub_a");
        await lockstep(b, nestedClient, [B[i] as string], "sub_b");
      }
      // Then both at once, several deltas per read.
      await Promise.all([a.text(...burstA), b.text(...burstB)]);
      await Promise.all([a.finish(), b.finish()]);
    });
    server = await startOpenAIChatServer(mock);
    nested = await server.connect();
    const flat = await server.connect({ flat: true });
    nested.command("chat_message", { content: "split the work" });
    const threadId = threadOf([await seen(nested, (f) => f.type === "thread", "the thread")]);
    // The flat socket follows the turn live before the model answers.
    flat.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    await seen(flat, (f) => f.type === "chat_resumed", "chat_resumed");
    flatFollowing.open();
    await nested.collectUntil(isDone);
    await flat.collectUntil(isDone);
    expect(mock.failures).toEqual([]);

    const frames = nested.received;
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);
    const indexOf = (match: (f: ServerFrame) => boolean) => frames.findIndex(match);
    const update = (id: string, status: "start" | "end") => (f: ServerFrame) =>
      f.type === "tool_call_update" && f.tool_call_id === id && f.status === status;
    for (const [node, text] of [
      ["sub_a", [...A, ...burstA]],
      ["sub_b", [...B, ...burstB]],
    ] as const) {
      const start = indexOf(update(node, "start"));
      const end = indexOf(update(node, "end"));
      const at = frames.flatMap((f, i) => (f.type === "chunk" && f.parent_id === node ? [i] : []));
      expect(start, `${node} start`).toBeGreaterThanOrEqual(0);
      expect(at[0], `${node}'s first chunk after its start`).toBeGreaterThan(start);
      expect(end, `${node}'s end after its last chunk`).toBeGreaterThan(at.at(-1) as number);
      const chunks = at.map((i) => frames[i] as ChunkFrame);
      expect(chunks.map((c) => c.content)).toEqual(text);
      for (const c of chunks) expect(c.depth).toBe(1);
      expect(frames[end]).toMatchObject({
        result: text.join(""),
        is_error: false,
        parent_id: null,
        depth: 0,
      });
    }
    // The two nodes' text really interleaved.
    const firstB = indexOf(chunkWith("b0 ", "sub_b"));
    expect(firstB).toBeLessThan(indexOf(chunkWith("a11 ", "sub_a")));
    const root = textChunks(frames).filter((c) => c.parent_id === null);
    expect(root.map((c) => [c.content, c.depth])).toEqual([
      ["Split", 0],
      ["ting.", 0],
      ["All ", 0],
      ["done.", 0],
    ]);
    expect(indexOf(chunkWith("ting."))).toBeLessThan(indexOf(update("sub_a", "start")));
    expect(indexOf(chunkWith("All "))).toBeGreaterThan(
      Math.max(indexOf(update("sub_a", "end")), indexOf(update("sub_b", "end"))),
    );
    expect(finalRow(frames)).toMatchObject({ content: "All done.", status: "complete" });

    // The flat socket: every frame but nested text, each the nested socket's frame of that seq.
    const flatFrames = flat.received;
    const resumedAt = flatFrames.findIndex((f) => f.type === "chat_resumed");
    expect(flatFrames.findIndex((f) => f.type === "chunk")).toBeGreaterThan(resumedAt);
    expect(flatFrames.filter((f) => f.type === "chunk" && f.depth > 0)).toEqual([]);
    expect(textOf(flatFrames)).toBe("Splitting.All done.");
    const bySeq = new Map(frames.filter(hasSeq).map((f) => [f.seq, f]));
    const flatSeqd = flatFrames.filter(hasSeq);
    for (const f of flatSeqd) expect(f).toEqual(bySeq.get(f.seq));
    const flatSeqs = flatSeqd.map((f) => f.seq);
    expect(flatSeqs).toEqual([...flatSeqs].sort((x, y) => x - y));
    expect(new Set(flatSeqs).size).toBe(flatSeqs.length);
    const nonText = (list: ServerFrame[]) => list.filter(hasSeq).filter((f) => f.type !== "chunk");
    expect(nonText(flatFrames)).toEqual(nonText(frames));
    expect(flatFrames.filter(isDone)).toHaveLength(1);
    expect(isDone(flatFrames.at(-1) as ServerFrame)).toBe(true);
  });

  it("a subtask's tool rounds while its sibling streams without pause: no chunk overtakes an earlier event of its node, none is lost", async () => {
    const rounds = 5;
    const aText = (r: number) => [`A${r}.0 `, `A${r}.1 `, `A${r}.2 `];
    const bSent: string[] = [];
    let aDone = false;
    const echo = echoTool();
    mock = await startOpenAIMock(async (c) => {
      if (c.lastUser === "race them") {
        if (c.toolResults === 0) {
          await c.toolCalls([
            { id: "sub_a", name: "run_subtask", args: { title: "Task A", instructions: "sub:A" } },
            { id: "sub_b", name: "run_subtask", args: { title: "Task B", instructions: "sub:B" } },
          ]);
          await c.finish("tool_calls");
        } else {
          await c.text("Both ", "ended.");
          await c.finish();
        }
        return;
      }
      if (c.lastUser === "sub:A") {
        // Each round ends a model call (a ledger write the driver waits for) and runs a tool at depth 1.
        const r = c.toolResults;
        if (r === rounds) {
          await c.text("A ", "done");
          await c.finish();
          aDone = true;
          return;
        }
        for (const d of aText(r)) await c.text(d);
        await c.toolCalls([{ id: `echo_${r}`, name: "echo", args: { text: `r${r}` } }]);
        await c.finish("tool_calls");
        return;
      }
      if (c.lastUser !== "sub:B") throw new Error(`unexpected request: ${c.lastUser}`);
      // B streams one delta per write for as long as A works, so its reads land while A's events travel.
      for (let i = 0; !aDone && i < 50_000; i++) {
        const d = `b${i} `;
        bSent.push(d);
        await c.text(d);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await c.finish();
    });
    server = await startOpenAIChatServer(mock, { extraTools: [echo] });
    const client = await server.connect();
    client.command("chat_message", { content: "race them" });
    const frames = await client.collectUntil(isDone, 30_000);
    expect(mock.failures).toEqual([]);
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);
    expect(echo.calls).toHaveLength(rounds);

    // Everything of sub_a, in the order its level produced it.
    const signature = (f: ServerFrame) =>
      f.type === "chunk"
        ? f.content
        : f.type === "tool_call_update"
          ? `${f.tool_call_id}:${f.status}`
          : f.type;
    const expectedA = [
      ...Array.from({ length: rounds }, (_, r) => [...aText(r), `echo_${r}:start`, `echo_${r}:end`]).flat(),
      "A ",
      "done",
    ];
    const ofNode = (id: string) => frames.filter((f) => "parent_id" in f && f.parent_id === id);
    expect(ofNode("sub_a").map(signature)).toEqual(expectedA);
    for (const f of ofNode("sub_a")) expect(f).toMatchObject({ depth: 1 });
    expect(ofNode("sub_b").map(signature)).toEqual(bSent);
    expect(bSent.length).toBeGreaterThan(0);
    // Each container's start before all of its node's frames, its end after them.
    for (const node of ["sub_a", "sub_b"]) {
      const start = frames.findIndex(
        (f) => f.type === "tool_call_update" && f.tool_call_id === node && f.status === "start",
      );
      const end = frames.findIndex(
        (f) => f.type === "tool_call_update" && f.tool_call_id === node && f.status === "end",
      );
      const inside = frames.flatMap((f, i) => ("parent_id" in f && f.parent_id === node ? [i] : []));
      expect(start).toBeLessThan(inside[0] as number);
      expect(end).toBeGreaterThan(inside.at(-1) as number);
    }
    const ends = frames.filter(
      (f): f is Extract<ServerFrame, { type: "tool_call_update" }> =>
        f.type === "tool_call_update" && f.status === "end" && f.depth === 0,
    );
    expect(ends.map((f) => [f.tool_call_id, f.result])).toEqual(
      expect.arrayContaining([
        ["sub_a", "A done"],
        ["sub_b", bSent.join("")],
      ]),
    );
    expect(finalRow(frames)).toMatchObject({ content: "Both ended.", status: "complete" });
  });

  it("stop mid-stream: the turn ends stopped, no text after the final row, the stored text is what the client got, the upstream request aborted", async () => {
    let client: TestClient | undefined;
    const expected = (n: number) => Array.from({ length: n }, (_, i) => `${i % 2 ? "t" : "s"}${i >> 1} `);
    mock = await startOpenAIMock(async (c) => {
      // Streams until the server lets go: two writes per step, the next step once the client has both.
      for (let i = 0; i < 5000 && !c.wasAborted(); i++) {
        await c.text(`s${i} `);
        await c.text(`t${i} `);
        const got = seen(client as TestClient, chunkWith(`t${i} `), `t${i}`).catch(() => undefined);
        await Promise.race([got, c.aborted]);
      }
    });
    server = await startOpenAIChatServer(mock);
    client = await server.connect();
    client.command("chat_message", { content: "go on forever" });
    await seen(client, chunkWith("t9 "), "ten steps of text");
    const threadId = threadOf(client.received);
    client.command("stop", { thread_id: threadId });
    await client.collectUntil(isDone);
    const frames = client.received;
    expectWellFormedTurn(frames);

    const chunks = textChunks(frames).map((c) => c.content);
    expect(chunks.length).toBeGreaterThanOrEqual(20);
    expect(chunks).toEqual(expected(chunks.length));
    expect(frames.filter((f) => f.type === "generation_stopped")).toHaveLength(1);
    const text = textOf(frames);
    expect(finalRow(frames)).toMatchObject({ role: "assistant", content: text, status: "stopped" });
    // Nothing streams after the final row: it holds every character the client got, and no more.
    expect(tailFromFinalRow(frames)).toEqual([
      "message",
      "generation_stopped",
      "usage",
      "agent_state",
      "chunk",
    ]);
    expect(await rowsOf(threadId)).toEqual([
      ["user", "go on forever", "complete"],
      ["assistant", text, "stopped"],
    ]);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("stopped");
    await withTimeout(
      (mock.completions[0] as Completion).aborted,
      5_000,
      "the upstream request to be aborted",
    );
    expect(mock.completions).toHaveLength(1);
    expect(mock.failures).toEqual([]);
    await client.ping();
  });

  describe("a provider that fails mid-stream", () => {
    const partial = ["Half ", "an ", "answer"];

    /** Runs the failing turn, then a plain one on the same socket and thread. */
    async function failThenRecover(fail: (c: Completion) => void | Promise<void>) {
      let client: TestClient | undefined;
      mock = await startOpenAIMock(async (c) => {
        if (c.lastUser === "fail please") {
          await lockstep(c, () => client as TestClient, partial);
          await fail(c);
          return;
        }
        await c.text("Recov", "ered.");
        await c.finish();
      });
      server = await startOpenAIChatServer(mock);
      client = await server.connect();
      client.command("chat_message", { content: "fail please" });
      const frames = await client.collectUntil(isDone);
      expectWellFormedTurn(frames);
      expect(textChunks(frames).map((c) => c.content)).toEqual(partial);
      // The partial text is kept: the final row has it, with the turn's status.
      expect(finalRow(frames)).toMatchObject({
        role: "assistant",
        content: partial.join(""),
        status: "error",
      });
      expect(tailFromFinalRow(frames)).toEqual(["message", "error", "usage", "agent_state", "chunk"]);
      const error = frames.find((f) => f.type === "error");
      const threadId = threadOf(frames);
      expect(await rowsOf(threadId)).toEqual([
        ["user", "fail please", "complete"],
        ["assistant", partial.join(""), "error"],
      ]);
      expect((await server.repos.turns.latest("local", threadId))?.status).toBe("error");
      // The provider let go of the failed response.
      await withTimeout(
        (mock.completions[0] as Completion).aborted,
        5_000,
        "the failed response to be dropped",
      );

      // The socket and the thread go on: the next turn completes.
      client.command("chat_message", { content: "again", thread_id: threadId });
      const next = await client.collectUntil(isDone);
      expectWellFormedTurn(next, ((frames.at(-1) as Seqd).seq ?? 0) + 1);
      expect(textChunks(next).map((c) => c.content)).toEqual(["Recov", "ered."]);
      expect(finalRow(next)).toMatchObject({ content: "Recovered.", status: "complete" });
      expect(mock.completions).toHaveLength(2);
      expect(mock.failures).toEqual([]);
      return error;
    }

    it("an SSE error event after some text: provider_error with the provider's message, the partial text kept, the socket goes on", async () => {
      const error = await failThenRecover((c) =>
        c.data({ error: { message: "Upstream overloaded", code: 502 } }),
      );
      expect(error).toMatchObject({ type: "error", code: "provider_error", message: "Upstream overloaded" });
    });

    it("a connection cut mid-body: provider_error, the partial text kept, the socket goes on", async () => {
      const error = await failThenRecover((c) => c.cut());
      expect(error).toMatchObject({ type: "error", code: "provider_error" });
      expect(error?.type === "error" && error.message).toMatch(
        /ended before the model finished|aborted|terminated/,
      );
    });
  });

  it("a stall after some text ends the turn with the stall error after PROVIDER_IDLE_TIMEOUT_MS, no second attempt", async () => {
    let client: TestClient | undefined;
    const deltas = ["Thinking ", "it ", "over"];
    mock = await startOpenAIMock(async (c) => {
      if (c.lastUser === "stall") {
        await lockstep(c, () => client as TestClient, deltas);
        return; // headers and some text sent; then nothing, the body left open
      }
      await c.text("fine");
      await c.finish();
    });
    server = await startOpenAIChatServer(mock, { env: { PROVIDER_IDLE_TIMEOUT_MS: "300" } });
    client = await server.connect();
    client.command("chat_message", { content: "stall" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(textChunks(frames).map((c) => c.content)).toEqual(deltas);
    expect(frames.find((f) => f.type === "error")).toMatchObject({
      code: "provider_error",
      message: expect.stringContaining("the provider stalled: it sent nothing for 300 ms"),
    });
    expect(finalRow(frames)).toMatchObject({ content: deltas.join(""), status: "error" });
    expect(tailFromFinalRow(frames)).toEqual(["message", "error", "usage", "agent_state", "chunk"]);
    const threadId = threadOf(frames);
    expect(await rowsOf(threadId)).toEqual([
      ["user", "stall", "complete"],
      ["assistant", deltas.join(""), "error"],
    ]);
    // Text had reached the client, so the call is not made again; the stalled request was dropped.
    expect(mock.completions).toHaveLength(1);
    await withTimeout(
      (mock.completions[0] as Completion).aborted,
      5_000,
      "the stalled request to be dropped",
    );
    client.command("chat_message", { content: "next", thread_id: threadId });
    expect(finalRow(await client.collectUntil(isDone))).toMatchObject({
      content: "fine",
      status: "complete",
    });
    expect(mock.failures).toEqual([]);
  });

  it("a socket that stops reading gets the pushed text merged (seq_start..seq) once it reads again: exact text, no gap", async () => {
    const deltas = Array.from({ length: 20_000 }, (_, i) => `x${i};`);
    mock = await startOpenAIMock(async (c) => {
      // Many reads of 50 deltas each, each write waiting for the socket to take it.
      for (let i = 0; i < deltas.length; i += 50) await c.text(...deltas.slice(i, i + 50));
      await c.finish();
    });
    server = await startOpenAIChatServer(mock, {
      serverLimits: {
        sendMergeThresholdBytes: 64 * 1024,
        sendSoftLimitBytes: 64 * 1024 * 1024,
        sendHardLimitBytes: 128 * 1024 * 1024,
      },
    });
    const client = await server.connect();
    const raw = (client.ws as unknown as { _socket: import("node:net").Socket })._socket;
    raw.pause();
    client.command("chat_message", { content: "a long one" });
    // The whole turn is produced while the client reads nothing: its row says it ended.
    const repos = server.repos;
    await until(
      async () => {
        const thread = (await repos.threads.list("local"))[0];
        return thread !== undefined && (await repos.turns.latest("local", thread.id))?.status === "complete";
      },
      "the turn to complete",
      { timeoutMs: 50_000 },
    );
    raw.resume();
    await client.collectUntil(isDone, 50_000);
    const frames = client.received;

    const chunks = textChunks(frames);
    expect(textOf(frames)).toBe(deltas.join(""));
    expect(chunks.some((c) => c.seq_start !== undefined)).toBe(true);
    expect(chunks.length).toBeLessThan(deltas.length);
    // Coverage without a gap: each frame starts right after the one before.
    const seqd = frames.filter(hasSeq);
    expect(seqd[0]?.seq_start ?? seqd[0]?.seq).toBe(1);
    for (let i = 1; i < seqd.length; i++) {
      const f = seqd[i] as Seqd;
      if ((f.seq_start ?? f.seq) !== (seqd[i - 1] as Seqd).seq + 1) {
        expect.fail(`gap before frame ${i}: ${JSON.stringify(f).slice(0, 200)}`);
      }
    }
    // One delta per seq: each merged frame holds exactly the deltas of its range.
    const firstSeq = (chunks[0] as ChunkFrame).seq_start ?? (chunks[0] as ChunkFrame).seq;
    for (const c of chunks) {
      const from = (c.seq_start ?? c.seq) - firstSeq;
      if (c.content !== deltas.slice(from, c.seq - firstSeq + 1).join("")) {
        expect.fail(`chunk ${c.seq_start}..${c.seq} does not hold the deltas of its seqs`);
      }
    }
    expect(frames.filter(isDone)).toHaveLength(1);
    expect(isDone(frames.at(-1) as ServerFrame)).toBe(true);
    const threadId = threadOf(frames);
    expect(finalRow(frames)).toMatchObject({ content: deltas.join(""), status: "complete" });
    expect(await rowsOf(threadId)).toEqual([
      ["user", "a long one", "complete"],
      ["assistant", deltas.join(""), "complete"],
    ]);
    expect(mock.failures).toEqual([]);
  }, 120_000);

  it("resume after a drop mid-stream: every seq exactly once across both sockets, the text exact; a resume from 0 gets the whole turn", async () => {
    const part = (p: string) => Array.from({ length: 15 }, (_, i) => `${p}${i} `);
    const [one, two, three] = [part("p"), part("q"), part("r")];
    const dropped = gate();
    const resumed = gate();
    let first: TestClient | undefined;
    let second: TestClient | undefined;
    mock = await startOpenAIMock(async (c) => {
      await lockstep(c, () => first as TestClient, one);
      await dropped.promise;
      // While nobody watches and while the second socket resumes: a write each, not waited for.
      const writes = two.map((d) => c.text(d));
      await resumed.promise;
      await Promise.all(writes);
      await lockstep(c, () => second as TestClient, three);
      await c.finish();
    });
    server = await startOpenAIChatServer(mock);
    first = await server.connect();
    first.command("chat_message", { content: "keep talking" });
    await seen(first, chunkWith(one.at(-1) as string), "the first part");
    first.ws.terminate();
    await first.waitForClose();
    const before = first.received.filter(hasSeq);
    const threadId = threadOf(before);
    const lastSeq = (before.at(-1) as Seqd).seq;
    dropped.open();

    second = await server.connect();
    second.command("resume_chat", { thread_id: threadId, last_seq: lastSeq });
    const answer = await seen(second, (f) => f.type === "chat_resumed", "chat_resumed");
    expect(answer).toMatchObject({ thread_id: threadId, status: "running" });
    resumed.open();
    await second.collectUntil(isDone);
    expect(mock.failures).toEqual([]);

    const after = second.received.filter(hasSeq);
    const replayedCount = second.received.findIndex((f) => f.type === "chat_resumed");
    expect(answer).toMatchObject({ replayed: replayedCount });
    const union = [...before, ...after];
    // Every seq exactly once, in order, from 1 to the done.
    expect(union.map((f) => f.seq)).toEqual(union.map((_, i) => i + 1));
    expectWellFormedTurn(union);
    expect(union.filter(isDone)).toHaveLength(1);
    const all = [...one, ...two, ...three];
    expect(textChunks(union).map((c) => c.content)).toEqual(all);
    expect(finalRow(union)).toMatchObject({ content: all.join(""), status: "complete" });
    expect(await rowsOf(threadId)).toEqual([
      ["user", "keep talking", "complete"],
      ["assistant", all.join(""), "complete"],
    ]);

    // Another client resuming from 0 gets the whole turn: the same frames.
    const third = await server.connect();
    third.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const replay = await third.collectUntil((f) => f.type === "chat_resumed");
    expect(replay.slice(0, -1)).toEqual(union);
    expect(replay.at(-1)).toMatchObject({ status: "finished", replayed: union.length });
  });
});
