import type { ServerFrame } from "@agentwire-chat/protocol";
import type { LoggedFrame } from "@agentwire-chat/storage";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { until } from "@agentwire-chat/testkit/until";
import type { FastifyBaseLogger } from "fastify";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Connection, type SocketLike } from "../../src/index.js";
import { type Outgoing, queueMerging } from "../../src/ws/merge-text-deltas.js";

type Chunk = Extract<ServerFrame, { type: "chunk" }> & { seq: number; seq_start?: number };

const chunkJson = (seq: number, content: string, extra: Partial<Chunk> = {}) =>
  JSON.stringify({ type: "chunk", content, parent_id: null, depth: 0, ...extra, thread_id: "th", seq });
const frame = (seq: number, content: string, extra: Partial<Chunk> = {}): LoggedFrame => ({
  seq,
  json: chunkJson(seq, content, extra),
});

describe("queueMerging", () => {
  it("merges consecutive deltas of one node: contents concatenated, seq_start..seq", () => {
    const outbox: Outgoing[] = [];
    const bytes = queueMerging(outbox, [frame(3, "a"), frame(4, "b"), frame(5, "c")], 0);
    expect(outbox).toHaveLength(1);
    const merged = JSON.parse((outbox[0] as Outgoing).json) as Chunk;
    expect(merged).toMatchObject({ type: "chunk", content: "abc", seq: 5, seq_start: 3, thread_id: "th" });
    expect(bytes).toBe((outbox[0] as Outgoing).json.length);
  });

  it("never merges across nodes, thinking, the done chunk or other frames", () => {
    const outbox: Outgoing[] = [];
    const other = { seq: 4, json: JSON.stringify({ type: "agent_state", state: "executing", seq: 4 }) };
    queueMerging(
      outbox,
      [
        frame(1, "a"),
        frame(2, "b", { parent_id: "s1", depth: 1 }),
        frame(3, "c", { thinking: true }),
        other,
        frame(5, "d"),
        frame(6, "", { done: true }),
        frame(7, "e"),
      ],
      0,
    );
    expect(outbox.map((o) => (JSON.parse(o.json) as { seq: number }).seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(outbox.some((o) => o.json.includes("seq_start"))).toBe(false);
  });
});

function fakeSocket() {
  const socket = {
    readyState: 1,
    bufferedAmount: 0,
    sent: [] as string[],
    corks: 0,
    uncorks: 0,
    closedWith: undefined as number | undefined,
    drain: [] as (() => void)[],
    send(data: string) {
      this.sent.push(data);
    },
    close(code?: number) {
      this.closedWith = code;
      this.readyState = 2;
    },
    terminate() {
      this.readyState = 3;
    },
    ping() {},
    cork() {
      this.corks += 1;
    },
    uncork() {
      this.uncorks += 1;
    },
    onceDrain(listener: () => void) {
      this.drain.push(listener);
    },
  };
  return socket satisfies SocketLike;
}

const logger = pino({ level: "silent" }) as FastifyBaseLogger;
const connection = (socket: SocketLike) =>
  new Connection({
    id: "c",
    userId: "u",
    socket,
    logger,
    sendSoftLimitBytes: 10_000,
    sendHardLimitBytes: 20_000,
    sendMergeThresholdBytes: 1_000,
  });

describe("Connection: batches and the slow-socket outbox", () => {
  it("writes a batch one frame per chunk inside one cork/uncork while the socket keeps up", () => {
    const socket = fakeSocket();
    connection(socket).deliver([frame(1, "a"), frame(2, "b"), frame(3, "c")]);
    expect(socket.sent.map((s) => (JSON.parse(s) as Chunk).content)).toEqual(["a", "b", "c"]);
    expect([socket.corks, socket.uncorks]).toEqual([1, 1]);
  });

  it("above the merge threshold frames wait and merge; after drain they go out in order, behind them a direct send", () => {
    const socket = fakeSocket();
    const conn = connection(socket);
    socket.bufferedAmount = 5_000;
    conn.deliver([frame(1, "a"), frame(2, "b")]);
    conn.deliver([frame(3, "c")]);
    conn.send({ type: "pong" });
    expect(socket.sent).toEqual([]);
    socket.bufferedAmount = 0;
    for (const listener of socket.drain.splice(0)) listener();
    expect(socket.sent.map((s) => JSON.parse(s) as { type: string })).toEqual([
      expect.objectContaining({ type: "chunk", content: "abc", seq_start: 1, seq: 3 }),
      { type: "pong" },
    ]);
  });

  it("past the soft limit the socket is closed 1013 and what waited is dropped", () => {
    const socket = fakeSocket();
    const conn = connection(socket);
    socket.bufferedAmount = 5_000;
    conn.deliver([frame(1, "x".repeat(6_000))]);
    expect(socket.closedWith).toBe(1013);
    socket.bufferedAmount = 0;
    for (const listener of socket.drain.splice(0)) listener();
    expect(socket.sent).toEqual([]);
  });
});

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a real socket that stops reading", () => {
  it("gets the whole answer, merged while it lagged, with seq ranges that join and one done", async () => {
    const words = Array.from({ length: 10_000 }, (_, i) => `w${i} `);
    server = await startChatServer([{ text: words }], {
      serverLimits: {
        sendMergeThresholdBytes: 64 * 1024,
        sendSoftLimitBytes: 64 * 1024 * 1024,
        sendHardLimitBytes: 128 * 1024 * 1024,
      },
    });
    const ws = new WebSocket(server.wsUrl);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const frames: (ServerFrame & { seq?: number; seq_start?: number })[] = [];
    const done = new Promise<void>((resolve) => {
      ws.on("message", (data) => {
        const f = JSON.parse(data.toString()) as ServerFrame & { seq?: number };
        frames.push(f);
        if (f.type === "chunk" && f.done) resolve();
      });
    });
    // The client stops reading before it asks: the server's buffer fills while the turn streams.
    const raw = (ws as unknown as { _socket: import("node:net").Socket })._socket;
    raw.pause();
    ws.send(JSON.stringify({ command: "chat_message", data: { content: "a long one" } }));
    // The whole turn is produced meanwhile: its row says it ended.
    await until(async () => {
      const thread = (await server?.repos.threads.list("local"))?.[0];
      const status = thread && (await server?.repos.turns.latest("local", thread.id))?.status;
      return status === "complete";
    }, "the turn's row to say complete");
    raw.resume();
    await done;
    ws.close();

    const chunks = frames.filter((f): f is Chunk => f.type === "chunk" && !f.done);
    expect(chunks.map((c) => c.content).join("")).toBe(words.join(""));
    expect(chunks.some((c) => c.seq_start !== undefined)).toBe(true);
    expect(chunks.length).toBeLessThan(words.length);
    const withSeq = frames.filter((f) => f.seq !== undefined);
    for (let i = 1; i < withSeq.length; i++) {
      const f = withSeq[i] as { seq: number; seq_start?: number };
      expect(f.seq_start ?? f.seq).toBe((withSeq[i - 1] as { seq: number }).seq + 1);
    }
    expect(frames.filter((f) => f.type === "chunk" && f.done)).toHaveLength(1);
  });
});
