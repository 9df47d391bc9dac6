// The model side of `pnpm bench stream` and `overload`, in its own process (forked with IPC): an
// OpenAI Chat Completions server (node:http) whose streams send one content delta every `chunkMs` in
// the real chunk format (role chunk, content chunks, finish chunk, usage chunk when asked,
// `data: [DONE]`). One interval ticks every open stream, so this process stays light; it is not
// measured.
// A request whose text holds `bench:chunks=N` streams N deltas instead of `chunks`; one holding
// `bench:tag=NAME` has the CLOCK_MONOTONIC time of each delta's write kept, and the IPC request
// `{id, op: "sent-times"}` answers `{id, times: {NAME: ms[]}}` (`overload` compares them with what
// the clients received).
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// monoMs of _server.ts, not imported: that module loads the whole server, and this process stays light.
const monoMs = (): number => Number(process.hrtime.bigint()) / 1e6;

const { chunks, chunkMs } = JSON.parse(process.argv[2] ?? "{}") as { chunks: number; chunkMs: number };
type Stream = {
  res: ServerResponse;
  sent: number;
  chunks: number;
  id: string;
  model: string;
  usage: boolean;
  /** Write times of a tagged stream's deltas. */
  times?: number[];
};
const streams = new Set<Stream>();
const sentTimes: Record<string, number[]> = {};
let served = 0;

const created = Math.floor(Date.now() / 1000);
const chunkOf = (s: Stream, delta: object, finish: string | null) =>
  `data: ${JSON.stringify({
    id: s.id,
    object: "chat.completion.chunk",
    created,
    model: s.model,
    system_fingerprint: "fp_bench",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(s.usage && { usage: null }),
  })}\n\n`;

const server = createServer((req, res) => {
  if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
    res.writeHead(404).end();
    return;
  }
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (part: string) => {
    body += part;
  });
  req.on("end", () => {
    const request = JSON.parse(body) as { model: string; stream_options?: { include_usage?: boolean } };
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const tag = /bench:tag=([\w-]+)/.exec(body)?.[1];
    const s: Stream = {
      res,
      sent: 0,
      chunks: Number(/bench:chunks=(\d+)/.exec(body)?.[1] ?? chunks),
      id: `chatcmpl-bench${served++}`,
      model: request.model,
      usage: request.stream_options?.include_usage === true,
    };
    if (tag !== undefined) {
      s.times = [];
      sentTimes[tag] = s.times;
    }
    res.write(chunkOf(s, { role: "assistant", content: "", refusal: null }, null));
    streams.add(s);
    res.on("close", () => streams.delete(s));
  });
});

setInterval(() => {
  const now = monoMs();
  for (const s of streams) {
    s.res.write(chunkOf(s, { content: ` w${s.sent}` }, null));
    s.times?.push(now);
    s.sent += 1;
    if (s.sent < s.chunks) continue;
    streams.delete(s);
    let tail = chunkOf(s, {}, "stop");
    if (s.usage) {
      tail += `data: ${JSON.stringify({
        id: s.id,
        object: "chat.completion.chunk",
        created,
        model: s.model,
        choices: [],
        usage: { prompt_tokens: 20, completion_tokens: s.chunks, total_tokens: 20 + s.chunks },
      })}\n\n`;
    }
    s.res.end(`${tail}data: [DONE]\n\n`);
  }
}, chunkMs);

process.on("message", (m: { id: number; op: string }) => {
  if (m.op === "sent-times") process.send?.({ id: m.id, times: sentTimes });
});

// The parent died (or was killed): nobody will ask this process to stop.
process.once("disconnect", () => process.exit(0));
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.send?.({ ready: (server.address() as AddressInfo).port });
});
