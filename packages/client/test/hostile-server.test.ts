import { testClient } from "@agentwire-chat/testkit/test-client";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import type { Client, ClientError } from "../src/index.js";
import { type FakeServer, startFakeServer } from "./support/fake-server.js";
import { readAll, seqs } from "./support/frames.js";

let fake: FakeServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await fake?.close();
  fake = undefined;
});

const t = { thread_id: "th_1" };
const user = {
  id: "m_1",
  thread_id: "th_1",
  role: "user",
  content: "hi",
  status: "complete",
  created_at: "x",
};
const final = { ...user, id: "m_2", role: "assistant", content: "Hello", status: "complete" };
const usage = {
  input_tokens: 1,
  output_tokens: 1,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0,
  cost_known: false,
  llm_calls: 1,
  tool_calls: 0,
  subtasks: 0,
};

describe("a hostile or buggy server", () => {
  it("bad JSON, an unknown frame type, an oversized frame and a seq gap are errors on values, never a throw", async () => {
    fake = await startFakeServer((cmd, send) => {
      if (cmd.command === "chat_message") {
        send({ type: "thread", title: "hi", request_id: cmd.request_id, ...t, seq: 1 });
        send({ type: "message", message: user, request_id: cmd.request_id, ...t, seq: 2 });
        send("{not json");
        send({ type: "from_the_future", ...t, seq: 3 });
        send({ type: "chunk", content: "Hel", parent_id: null, depth: 0, ...t, seq: 4 });
        send({ type: "chunk", content: "x".repeat(5000), parent_id: null, depth: 0, ...t, seq: 5 });
        send({ type: "chunk", content: "lo", parent_id: null, depth: 0, ...t, seq: 6 });
      } else if (cmd.command === "resume_chat") {
        // It asks for what it missed; this server lost seq 5 and goes on without it.
        send({ type: "chat_resumed", status: "running", last_seq: 4, replayed: 0, ...t });
        send({ type: "chunk", content: "lo", parent_id: null, depth: 0, ...t, seq: 6 });
        send({ type: "message", message: final, ...t, seq: 7 });
        send({ type: "usage", ...usage, ...t, seq: 8 });
        send({ type: "agent_state", state: "idle", ...t, seq: 9 });
        send({ type: "chunk", content: "", done: true, parent_id: null, depth: 0, ...t, seq: 10 });
      }
    });
    const problems: ClientError[] = [];
    const client = testClient(fake.url, { maxFrameChars: 2000, onError: (e) => problems.push(e) });
    clients.push(client);
    const turn = client.send({ content: "hi" });
    turn.subscribe(() => {
      throw new Error("a buggy app listener");
    });
    const frames = await readAll(turn);
    const end = await turn.done;
    expect(end.status).toBe("complete");
    expect(await turn.text()).toBe("Hello");
    expect(await turn.threadId).toBe("th_1");
    // The unknown frame is skipped without a gap; seq 5 was healed for once, then given up on.
    expect(seqs(frames)).toEqual([1, 2, 4, 6, 7, 8, 9, 10]);
    expect(turn.errors.map((e) => e.code)).toEqual(["frame_too_large", "seq_gap"]);
    expect(problems.map((e) => e.code)).toEqual(["bad_frame", "frame_too_large"]);
    expect(fake.received.filter((c) => c.command === "resume_chat").map((c) => c.data)).toEqual([
      { thread_id: "th_1", last_seq: 4 },
    ]);
  });

  it("a silent socket is noticed by the heartbeat and replaced", async () => {
    fake = await startFakeServer(() => {
      // Never answers, not even ping: a half-open connection.
    });
    const client = testClient(fake.url, { heartbeat: { intervalMs: 30, timeoutMs: 30 } });
    clients.push(client);
    // Both, in either order of arrival: under load the server may see the new socket before the ping.
    await until(
      () => ((fake?.connections ?? 0) >= 2 && fake?.received.some((c) => c.command === "ping")) || undefined,
      "a ping, then a second connection",
    );
    expect(fake.connections).toBeGreaterThanOrEqual(2);
  });

  it("close() ends a live turn with code closed; send after close is an ended turn", async () => {
    fake = await startFakeServer((cmd, send) => {
      if (cmd.command === "chat_message")
        send({ type: "thread", title: "hi", request_id: cmd.request_id, ...t, seq: 1 });
    });
    const client = testClient(fake.url);
    const turn = client.send({ content: "hi" });
    await turn.threadId;
    client.close();
    expect(await turn.done).toMatchObject({ status: "error", error: { code: "closed" } });
    expect(await client.send({ content: "again" }).done).toMatchObject({ error: { code: "closed" } });
  });
});
