// The floor of `pnpm bench stream`, in its own process (forked with IPC, measured like the agentwire
// server by _self-measure.ts): the least a server can do to relay the same streams. A `ws` server
// (the nested subprotocol accepted) that, for each chat_message, posts to the paced OpenAI-format
// server over one keep-alive agent, reads the event stream with `eventsource-parser` (what agentwire
// reads it with), and sends each content delta as one chunk frame with a thread_id and a rising seq,
// then a done. With `durable`, it also writes each tick's frames to a SQLite file before sending them
// (one transaction per tick, one row per thread per tick, WAL, synchronous=NORMAL: the shape of
// agentwire's group commit), so the floor of a relay whose frames survive a crash is measured too.
// No agent loop, no rows for turns or messages, no admission, no logging.
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createParser } from "eventsource-parser";
import { type WebSocket, WebSocketServer } from "ws";
import { serveMeasurements } from "./_self-measure.js";

const {
  ssePort,
  cpuSampleMs = 25,
  durable = false,
} = JSON.parse(process.argv[2] ?? "{}") as { ssePort: number; cpuSampleMs?: number; durable?: boolean };

const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
const dir = mkdtempSync(join(tmpdir(), "agentwire-bench-bare-"));
const db = durable ? new Database(join(dir, "bare.db")) : null;
const insert = (() => {
  if (!db) return null;
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    "CREATE TABLE frames (thread_id TEXT NOT NULL, first_seq INTEGER NOT NULL, frames TEXT NOT NULL, PRIMARY KEY (thread_id, first_seq)) WITHOUT ROWID",
  );
  const row = db.prepare("INSERT INTO frames (thread_id, first_seq, frames) VALUES (?, ?, ?)");
  return db.transaction((batches: Iterable<Pending>) => {
    for (const p of batches) row.run(p.threadId, p.firstSeq, p.lines.join("\n"));
  });
})();

/** A thread's frames of this tick, not yet written and sent. */
type Pending = { threadId: string; firstSeq: number; lines: string[]; ws: WebSocket };
const pending = new Map<string, Pending>();
let scheduled = false;
const flush = () => {
  scheduled = false;
  insert?.(pending.values());
  for (const p of pending.values()) for (const line of p.lines) p.ws.send(line);
  pending.clear();
};

let threads = 0;
function relay(ws: WebSocket, content: string) {
  threads += 1;
  const threadId = `bare-${threads}`;
  let seq = 0;
  const send = (frame: object) => {
    seq += 1;
    const line = JSON.stringify({ ...frame, thread_id: threadId, seq });
    if (!db) {
      ws.send(line);
      return;
    }
    const p = pending.get(threadId);
    if (p) p.lines.push(line);
    else pending.set(threadId, { threadId, firstSeq: seq, lines: [line], ws });
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const parser = createParser({
    onEvent: (event) => {
      if (event.data === "[DONE]") return;
      const chunk = JSON.parse(event.data) as { choices?: { delta?: { content?: string } }[] };
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) send({ type: "chunk", content: text, content_type: "text", done: false });
    },
  });
  const req = request(
    {
      agent,
      host: "127.0.0.1",
      port: ssePort,
      method: "POST",
      path: "/v1/chat/completions",
      headers: { "content-type": "application/json" },
    },
    (res) => {
      res.setEncoding("utf8");
      res.on("data", (part: string) => parser.feed(part));
      res.on("end", () => send({ type: "chunk", content: "", content_type: "text", done: true }));
    },
  );
  req.end(
    JSON.stringify({
      model: "paced-1",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content }],
    }),
  );
}

const wss = new WebSocketServer({
  port: 0,
  host: "127.0.0.1",
  path: "/ws",
  perMessageDeflate: false,
  handleProtocols: (offered) => offered.values().next().value ?? false,
});
wss.on("connection", (ws) => {
  ws.on("message", (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { command: string; data: { content: string } };
    if (message.command === "chat_message") relay(ws, message.data.content);
  });
});
await new Promise((resolve) => wss.once("listening", resolve));
const { port } = wss.address() as AddressInfo;
serveMeasurements(`ws://127.0.0.1:${port}/ws`, cpuSampleMs, async () => {
  for (const ws of wss.clients) ws.terminate();
  await new Promise((resolve) => wss.close(resolve));
  agent.destroy();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});
