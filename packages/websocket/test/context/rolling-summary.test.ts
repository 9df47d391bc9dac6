import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ServerFrame, ServerFrameOf } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import {
  append,
  branchSummary,
  isSummarizer,
  requestTokens,
  seedThread,
  settings,
  summaryStep,
  transcript,
  USER,
} from "./context-fixtures.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const answer = { text: "ok", usage: { inputTokens: 100, outputTokens: 10 } };
const framesOf = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is ServerFrameOf<T> => f.type === type);
const turnCalls = (requests: ProviderRequest[]) => requests.filter((r) => !isSummarizer(r));
const summarizerCalls = (requests: ProviderRequest[]) => requests.filter(isSummarizer);

/** Sends a message on the thread and returns the turn's frames. */
async function turn(s: ChatTestServer, threadId: string, content: string): Promise<ServerFrame[]> {
  const client = await s.connect();
  client.command("chat_message", { content, thread_id: threadId });
  const frames = await client.collectUntil(isDone);
  client.close();
  return frames;
}

describe("context budget and rolling summary", () => {
  it("keeps a 200-message thread under budget: the turn waits for the summary of exactly the older messages, and counts both calls", async () => {
    server = await startChatServer((request) =>
      isSummarizer(request)
        ? summaryStep("S1: the user asked 47 questions, ids q-000..q-046", [
            { op: "add", kind: "note", title: "from the summary" },
          ])
        : answer,
    );
    const budget = 4_000;
    server.chat.context = settings({ CONTEXT_MAX_TOKENS: budget });
    const { threadId, rows } = await seedThread(server, 50);
    expect(rows).toHaveLength(200);

    const frames = await turn(server, threadId, "next question");
    expectWellFormedTurn(frames, 1);
    // No summary covers the 201 messages and the budget fits only the newest: the summarizer goes first.
    expect(isSummarizer(server.provider.requests[0] as ProviderRequest)).toBe(true);
    const [main] = turnCalls(server.provider.requests);
    const [summarizer] = summarizerCalls(server.provider.requests);
    // The summarizer reads exactly the 189 messages before the 12 it leaves verbatim, oldest first.
    const text = transcript(summarizer as ProviderRequest);
    expect(text).toContain('<messages count="189">');
    expect(text).toContain("[user] question q-000");
    expect(text).toContain('[assistant calls lookup {"n":46}] (id c-046)');
    expect(text).toContain("[result of lookup (id c-046)] result r-046");
    expect(text.trimEnd().endsWith("[user] question q-047\n</messages>")).toBe(true);
    expect(text).not.toContain("looking up 047");
    expect(text).not.toContain("next question");
    // The answer's call gets that summary and the 12 after it (from #189, an assistant tool call).
    expect(main?.systemPrompt).toContain("S1: the user asked 47 questions");
    expect(main?.messages).toHaveLength(12);
    expect(main?.messages[0]).toMatchObject({ role: "assistant", text: "looking up 047" });
    expect(main?.messages.at(-1)).toEqual({ role: "user", content: "next question" });
    expect(requestTokens(main as ProviderRequest)).toBeLessThanOrEqual(budget);

    const usage = framesOf(frames, "context_usage");
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({
      budget,
      messages_summarized: 189,
      messages_verbatim: 12,
      messages_dropped: 0,
    });
    expect(usage[0]?.summary_tokens).toBeGreaterThan(0);
    expect(usage[0]?.tokens).toBeLessThanOrEqual(budget);
    // Both calls count in the turn's usage frame, the stored turn and the ledger.
    expect(framesOf(frames, "usage")[0]).toMatchObject({
      llm_calls: 2,
      input_tokens: 600,
      output_tokens: 60,
    });
    const stored = await server.repos.turns.latest(USER, threadId);
    expect(stored?.usage).toMatchObject({ llm_calls: 2, input_tokens: 600 });
    expect(await server.repos.llmCalls.forTurn(USER, stored?.id ?? "")).toHaveLength(2);
    // The summary is stored with its coverage; its proposal reached the scratchpad and the client, in the turn.
    expect(await branchSummary(server, threadId)).toEqual({
      summary: "S1: the user asked 47 questions, ids q-000..q-046",
      throughMessageId: rows[188]?.id,
      messageCount: 189,
    });
    expect(framesOf(frames, "scratchpad_patch")[0]?.items).toMatchObject([
      { title: "from the summary", kind: "note" },
    ]);

    // The next turn reads the summary and sends only what it does not cover: no new summarizer call.
    const next = await turn(server, threadId, "and then?");
    expect(summarizerCalls(server.provider.requests)).toHaveLength(1);
    const second = turnCalls(server.provider.requests)[1] as ProviderRequest;
    expect(second.systemPrompt).toContain("S1: the user asked 47 questions");
    expect(second.systemPrompt).toContain("from the summary");
    expect(second.messages).toHaveLength(14);
    expect(second.messages[0]).toMatchObject({ role: "assistant", text: "looking up 047" });
    expect(second.messages.slice(-3)).toEqual([
      { role: "user", content: "next question" },
      { role: "assistant", text: "ok" },
      { role: "user", content: "and then?" },
    ]);
    expect(framesOf(next, "context_usage")[0]).toMatchObject({
      messages_summarized: 189,
      messages_verbatim: 14,
    });
    expect(framesOf(next, "context_usage")[0]?.summary_tokens).toBeGreaterThan(0);
  });

  it("stays under budget on every call while a thread grows past 200 messages turn after turn", async () => {
    server = await startChatServer((request) =>
      isSummarizer(request) ? summaryStep(`summary after ${request.messages.length} call`) : answer,
    );
    const budget = 3_000;
    server.chat.context = settings({ CONTEXT_MAX_TOKENS: budget, CONTEXT_MAX_MESSAGES: 20 });
    const { threadId } = await seedThread(server, 45);
    for (let i = 0; i < 12; i++) {
      await turn(server, threadId, `turn ${i} ${"x".repeat(400)}`);
      // Each summary lands before the next turn starts (a turn started earlier would read the old one).
      await server.chat.turns.sideWorkOf(threadId);
    }
    const calls = turnCalls(server.provider.requests);
    expect(calls).toHaveLength(12);
    for (const call of calls) expect(requestTokens(call)).toBeLessThanOrEqual(budget);
    // 180 seeded + 24 new messages, summarized whenever the unsummarized part passed 20.
    expect(summarizerCalls(server.provider.requests).length).toBeGreaterThanOrEqual(2);
    const summary = await branchSummary(server, threadId);
    const rows = await server.repos.messages.list(USER, threadId);
    expect(rows).toHaveLength(204);
    const covered = rows.findIndex((r) => r.id === summary?.throughMessageId) + 1;
    expect(summary?.messageCount).toBe(covered);
    expect(rows.length - covered).toBeLessThanOrEqual(22);
  });

  it("keeps a pasted document the user is talking about verbatim while the rest is summarized", async () => {
    server = await startChatServer((request) =>
      isSummarizer(request) ? summaryStep("S: short talk") : answer,
    );
    server.chat.context = settings({
      CONTEXT_VERBATIM_MESSAGES: 4,
      CONTEXT_MAX_MESSAGES: 6,
      CONTEXT_PIN_CHARS: 5_000,
    });
    const { threadId } = await seedThread(server, 2);
    const doc = `DOCUMENT START ${"lorem ipsum ".repeat(1_000)} DOCUMENT END`;
    await append(server, threadId, { role: "user", content: doc });
    await append(server, threadId, { role: "assistant", content: "got the document" });
    await append(server, threadId, { role: "user", content: "what does section 2 say?" });
    await append(server, threadId, { role: "assistant", content: "it says..." });

    const frames = await turn(server, threadId, "and section 3?");
    await server.chat.turns.sideWorkOf(threadId);
    const main = turnCalls(server.provider.requests)[0] as ProviderRequest;
    // The document first, whole, then what the summary leaves: min(4, half of 6) = 3 messages.
    expect(
      main.messages.map((m) => (m.role === "user" ? m.content : m.role === "assistant" ? m.text : m.content)),
    ).toEqual([doc, "what does section 2 say?", "it says...", "and section 3?"]);
    expect(main.systemPrompt).toContain("S: short talk");
    expect(framesOf(frames, "context_usage")[0]).toMatchObject({
      messages_summarized: 10,
      messages_dropped: 0,
    });
    const text = transcript(summarizerCalls(server.provider.requests)[0] as ProviderRequest);
    expect(text).toContain('<messages count="10">');
    expect(text).toContain("[user, pasted document kept verbatim] DOCUMENT START");
  });

  it("completes the turn when the summarizer fails, keeping the previous summary", async () => {
    server = await startChatServer((request) =>
      isSummarizer(request)
        ? { error: "summarizer is down", usage: { inputTokens: 7, outputTokens: 0 } }
        : answer,
    );
    server.chat.context = settings({ CONTEXT_MAX_MESSAGES: 20 });
    const { threadId } = await seedThread(server, 10);
    const frames = await turn(server, threadId, "still there?");
    await server.chat.turns.sideWorkOf(threadId);
    expectWellFormedTurn(frames, 1);
    // 41 messages over a budget of 20 and no summary: the call sends the newest 20 and says 21 are left out.
    expect(framesOf(frames, "context_usage")[0]).toMatchObject({
      messages_verbatim: 20,
      messages_dropped: 21,
    });
    expect(frames.some((f) => f.type === "error")).toBe(false);
    expect(framesOf(frames, "message").at(-1)?.message).toMatchObject({ content: "ok", status: "complete" });
    expect(await branchSummary(server, threadId)).toBeUndefined();
    const stored = await server.repos.turns.latest(USER, threadId);
    expect(stored?.status).toBe("complete");
    const calls = await server.repos.llmCalls.forTurn(USER, stored?.id ?? "");
    expect(calls).toHaveLength(2);
    expect(calls.filter((c) => c.error?.includes("summarizer is down"))).toHaveLength(1);
    expect(server.logs.some((l) => l.includes("summarizer failed"))).toBe(true);
  });

  it("ignores an answer that is not the summary JSON", async () => {
    server = await startChatServer((request) =>
      isSummarizer(request) ? { text: "Sure! Here is a summary." } : answer,
    );
    server.chat.context = settings({ CONTEXT_MAX_MESSAGES: 20 });
    const { threadId } = await seedThread(server, 10);
    const frames = await turn(server, threadId, "hello again");
    await server.chat.turns.sideWorkOf(threadId);
    expect(framesOf(frames, "message").at(-1)?.message.status).toBe("complete");
    expect(await branchSummary(server, threadId)).toBeUndefined();
    expect(server.logs.some((l) => l.includes("no JSON object"))).toBe(true);
  });

  it("sends the whole history and no summarizer call while the thread is within budget", async () => {
    server = await startChatServer([answer]);
    server.chat.context = settings();
    const { threadId } = await seedThread(server, 3);
    const frames = await turn(server, threadId, "short thread");
    expect(server.provider.requests).toHaveLength(1);
    expect(server.provider.requests[0]?.messages).toHaveLength(13);
    expect(framesOf(frames, "context_usage")[0]).toMatchObject({
      messages_summarized: 0,
      messages_verbatim: 13,
    });
    expect(framesOf(frames, "usage")[0]).toMatchObject({ llm_calls: 1 });
  });

  it("a slow summarizer started early does not hold the thread: done comes with the answer, the next turn reads the old summary, the late call is in the ledger", async () => {
    const release = gate();
    server = await startChatServer((request) =>
      isSummarizer(request)
        ? {
            ...summaryStep("S-late", [{ op: "add", kind: "note", title: "late note" }]),
            hold: release.promise,
          }
        : answer,
    );
    server.chat.context = settings({ CONTEXT_MAX_MESSAGES: 20 });
    // 17 messages: within the budget of 20, past three quarters of it: the summarizer starts beside the turn.
    const { threadId } = await seedThread(server, 4);
    const client = await server.connect();
    client.command("chat_message", { content: "first", thread_id: threadId });
    const first = await client.collectUntil(isDone);
    expectWellFormedTurn(first, 1);
    // The summarizer was asked and is still waiting: the turn ended without it.
    expect(summarizerCalls(server.provider.requests)).toHaveLength(1);
    expect(server.chat.turns.sideWorkOf(threadId)).toBeDefined();
    expect(framesOf(first, "usage")[0]).toMatchObject({ llm_calls: 1, input_tokens: 100 });
    const firstTurn = await server.repos.turns.latest(USER, threadId);
    expect(firstTurn?.status).toBe("complete");

    // The thread is free at once; the next turn (19 messages, all sent) reads the previous (no) summary,
    // does not wait, and starts no second summarizer.
    client.command("chat_message", { content: "second", thread_id: threadId });
    const second = await client.collectUntil(isDone);
    expect(second.some((f) => f.type === "error")).toBe(false);
    expect(framesOf(second, "message").at(-1)?.message).toMatchObject({ content: "ok", status: "complete" });
    expect(turnCalls(server.provider.requests)[1]?.systemPrompt).not.toContain("S-late");
    expect(turnCalls(server.provider.requests)[1]?.messages).toHaveLength(19);
    expect(framesOf(second, "context_usage")[0]).toMatchObject({
      messages_verbatim: 19,
      messages_dropped: 0,
    });
    expect(summarizerCalls(server.provider.requests)).toHaveLength(1);

    release.open();
    await server.chat.turns.sideWorkOf(threadId);
    expect(await branchSummary(server, threadId)).toMatchObject({ summary: "S-late" });
    // The late call: a ledger row under the turn it ran beside, whose row now counts it too.
    const ledger = await server.repos.llmCalls.forTurn(USER, firstTurn?.id ?? "");
    expect(ledger).toHaveLength(2);
    expect((await server.repos.turns.get(USER, firstTurn?.id ?? ""))?.usage).toMatchObject({
      llm_calls: 2,
      input_tokens: 600,
    });
    // Its scratchpad proposal is appended to the thread's log after the turns: resume_chat replays it.
    const lastSeq = (second.at(-1) as { seq: number }).seq;
    client.command("resume_chat", { thread_id: threadId, last_seq: lastSeq });
    const replay = await client.collectUntil((f) => f.type === "chat_resumed");
    expect(replay[0]).toMatchObject({
      type: "scratchpad_patch",
      seq: lastSeq + 1,
      items: [{ title: "late note" }],
    });
    client.close();

    // The turn after it reads the new summary.
    await turn(server, threadId, "third");
    expect(turnCalls(server.provider.requests)[2]?.systemPrompt).toContain("S-late");
  });

  it("SUMMARIZER_TIMEOUT_MS ends a summarizer that never answers, after its turn, keeping the old summary", async () => {
    server = await startChatServer((request) =>
      isSummarizer(request) ? { text: "{", hold: "until-aborted" } : answer,
    );
    server.chat.context = settings({ CONTEXT_MAX_MESSAGES: 20, SUMMARIZER_TIMEOUT_MS: 300 });
    // Within the budget (17 of 20), so the turn does not wait for the summarizer started beside it.
    const { threadId } = await seedThread(server, 4);
    const frames = await turn(server, threadId, "hello");
    expectWellFormedTurn(frames, 1);
    await server.chat.turns.sideWorkOf(threadId);
    expect(server.chat.turns.sideWorkOf(threadId)).toBeUndefined();
    expect(await branchSummary(server, threadId)).toBeUndefined();
    const stored = await server.repos.turns.latest(USER, threadId);
    const ledger = await server.repos.llmCalls.forTurn(USER, stored?.id ?? "");
    expect(ledger).toHaveLength(2);
    expect(server.logs.some((l) => l.includes("summarizer failed"))).toBe(true);
  });
});
