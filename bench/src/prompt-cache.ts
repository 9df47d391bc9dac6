// `pnpm bench prompt-cache [runs]`: what Anthropic prompt caching saves on a 20-step tool loop. The real
// AnthropicProvider (built by the registry, as the server builds it) runs runAgentLoop with one tool
// against a local Messages server that bills the cache the way the API documents it, with and without
// `promptCache`, alternating. Writes bench/results/prompt-cache.json.
import { createHash, type Hash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createLoopContext,
  createProviderRegistry,
  defineTool,
  drainLoop,
  type LlmCallRecord,
  ok,
  priceOf,
  runAgentLoop,
} from "@agentwire-chat/agents";
import { z } from "zod";
import { benchStart, machineInfo } from "./_machine.js";

const start = benchStart();

const MODEL = "claude-sonnet-4-5";
const STEPS = 20;
/** Runs per setting; on and off alternate. The token figures are deterministic, the time is not. */
const RUNS = Number(process.argv[2] ?? 3);
/** Anthropic's smallest cacheable prefix for Sonnet: a breakpoint before it writes nothing. */
const MIN_CACHEABLE_TOKENS = 1024;
/** The API looks for a hit at each breakpoint and up to 20 blocks before it. */
const LOOKBACK_BLOCKS = 20;
const OUTPUT_TOKENS = 80;

// A workload like a coding agent's: a long system prompt, a tool with a long description, results
// of a few hundred tokens each.
const SYSTEM_PROMPT = Array.from(
  { length: 120 },
  (_, i) =>
    `Rule ${i + 1}: keep answers short, cite the files you read, and never guess an API you have not seen.`,
).join("\n");
const LONG_DESCRIPTION = Array.from(
  { length: 40 },
  (_, i) => `Note ${i + 1}: the path is relative to the repository root; binary files are refused.`,
).join(" ");

const readFile = defineTool({
  name: "read_file",
  description: `Reads a file of the repository. ${LONG_DESCRIPTION}`,
  args: z.object({ path: z.string() }),
  permissionClass: "safe",
  execute: async ({ path }) =>
    ok(
      Array.from({ length: 40 }, (_, i) => `${path}:${i + 1}: export const value${i} = compute(${i});`).join(
        "\n",
      ),
    ),
});

/** Tokens as both sides estimate them. */
const tokensOf = (text: string) => Math.ceil(text.length / 4);

type Block = Record<string, unknown> & { cache_control?: unknown };
type Body = {
  tools?: Block[];
  system?: string | Block[];
  messages: { role: string; content: string | Block[] }[];
};

/** The cache bill of one request. */
type CacheBill = { plain: number; read: number; write: number };

/**
 * The honest cache: prefixes written at a breakpoint are kept for the run. A request reads the longest
 * written prefix found at one of its breakpoints or up to 20 blocks before one, writes from there up
 * to its last breakpoint (when that prefix is cacheable), and pays the rest as plain input. The
 * prefix is tools → system → messages, compared without the `cache_control` markers.
 */
class SimulatedCache {
  private readonly written = new Set<string>();

  bill(body: Body): CacheBill {
    const blocks: { key: string; tokens: number; marked: boolean }[] = [];
    const hash: Hash = createHash("sha256");
    let total = 0;
    const add = (block: unknown, marked: boolean) => {
      const text = JSON.stringify(block, (k, v) => (k === "cache_control" ? undefined : v));
      hash.update(text);
      total += tokensOf(text);
      blocks.push({ key: hash.copy().digest("hex"), tokens: total, marked });
    };
    for (const tool of body.tools ?? []) add(tool, tool.cache_control !== undefined);
    if (typeof body.system === "string") add(body.system, false);
    else for (const b of body.system ?? []) add(b, b.cache_control !== undefined);
    for (const m of body.messages) {
      const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
      for (const [i, b] of content.entries()) {
        add(i === 0 ? { role: m.role, ...b } : b, (b as Block).cache_control !== undefined);
      }
    }
    const marks = blocks.flatMap((b, i) => (b.marked ? [i] : []));
    let read = 0;
    for (const m of marks) {
      for (let i = m; i >= Math.max(0, m - LOOKBACK_BLOCKS); i--) {
        const b = blocks[i]!;
        if (this.written.has(b.key)) {
          read = Math.max(read, b.tokens);
          break;
        }
      }
    }
    let write = 0;
    const last = marks.at(-1);
    if (last !== undefined && blocks[last]!.tokens >= MIN_CACHEABLE_TOKENS) {
      write = Math.max(0, blocks[last]!.tokens - read);
      for (const m of marks) if (blocks[m]!.tokens >= MIN_CACHEABLE_TOKENS) this.written.add(blocks[m]!.key);
    }
    return { plain: total - read - write, read, write };
  }
}

/** A Messages server: the first STEPS calls of a run ask for a file, the last answers. */
async function startMessagesServer() {
  let cache = new SimulatedCache();
  const bills: CacheBill[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Body;
      const bill = cache.bill(body);
      bills.push(bill);
      const step = body.messages.filter((m) => m.role === "assistant").length;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(messagesStream(step, bill));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bills,
    /** A new run: a new cache (a cold start, as a new thread's first turn). */
    reset() {
      cache = new SimulatedCache();
      bills.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function messagesStream(step: number, bill: CacheBill): string {
  const done = step >= STEPS;
  const text = done ? "All files read; the values are computed in order." : `Reading file ${step + 1}.`;
  const events: unknown[] = [
    {
      type: "message_start",
      message: {
        id: `msg_${step}`,
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [],
        stop_reason: null,
        usage: {
          input_tokens: bill.plain,
          cache_read_input_tokens: bill.read,
          cache_creation_input_tokens: bill.write,
          output_tokens: 1,
        },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
    { type: "content_block_stop", index: 0 },
  ];
  if (!done) {
    events.push(
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: `toolu_${step}`, name: "read_file", input: {} },
      },
      {
        type: "content_block_delta",
        index: 1,
        delta: {
          type: "input_json_delta",
          partial_json: JSON.stringify({ path: `src/module-${step + 1}.ts` }),
        },
      },
      { type: "content_block_stop", index: 1 },
    );
  }
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: done ? "end_turn" : "tool_use" },
      usage: { output_tokens: OUTPUT_TOKENS },
    },
    { type: "message_stop" },
  );
  return events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

type RunResult = {
  calls: number;
  plain: number;
  read: number;
  write: number;
  billedInputTokens: number;
  inputUsd: number;
  ledgerUsd: number;
  ms: number;
};

async function run(
  server: Awaited<ReturnType<typeof startMessagesServer>>,
  promptCache: boolean,
): Promise<RunResult> {
  server.reset();
  const registry = createProviderRegistry({
    anthropic: { apiKey: "sk-ant-bench", baseURL: server.url, promptCache },
    maxRetries: 0,
  });
  const records: LlmCallRecord[] = [];
  const ctx = createLoopContext(
    { MAX_TOTAL_LLM_CALLS: 100, MAX_ITERATIONS_PER_LEVEL: STEPS + 5 },
    { wallClockTimer: false, onLlmCall: (r) => records.push(r) },
  );
  const t0 = performance.now();
  const result = await drainLoop(
    runAgentLoop({
      provider: registry.get("anthropic")!,
      from: {
        kind: "start",
        model: MODEL,
        systemPrompt: SYSTEM_PROMPT,
        history: [{ role: "user", content: `Read src/module-1.ts to src/module-${STEPS}.ts one by one.` }],
      },
      tools: [readFile],
      ctx,
    }),
    () => {},
  );
  const ms = performance.now() - t0;
  if (result.status !== "complete") throw new Error(`run ended ${result.status}`);
  const price = priceOf(MODEL)!;
  const sum = (k: keyof CacheBill) => server.bills.reduce((a, b) => a + b[k], 0);
  const plain = sum("plain");
  const read = sum("read");
  const write = sum("write");
  const inputUsd = (plain * price.input + read * price.cacheRead + write * price.cacheWrite) / 1e6;
  const outputUsd = (records.reduce((a, r) => a + r.outputTokens, 0) * price.output) / 1e6;
  const ledgerUsd = records.reduce((a, r) => a + r.costUsd, 0);
  // The ledger prices the same usage: its input share must be what the server billed.
  if (Math.abs(ledgerUsd - outputUsd - inputUsd) > 1e-9)
    throw new Error("ledger and simulated bill disagree");
  return {
    calls: server.bills.length,
    plain,
    read,
    write,
    billedInputTokens: Math.round(plain + 0.1 * read + 1.25 * write),
    inputUsd,
    ledgerUsd,
    ms,
  };
}

const server = await startMessagesServer();
const on: RunResult[] = [];
const off: RunResult[] = [];
for (let i = 0; i < RUNS * 2; i++) {
  // Alternate which setting goes first so neither always runs warm.
  const cached = i % 2 === (Math.floor(i / 2) % 2 === 0 ? 0 : 1);
  (cached ? on : off).push(await run(server, cached));
}
await server.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const summary = (rs: RunResult[]) => {
  const r = rs[0]!;
  // Tokens are deterministic: every run of a setting bills the same; checked, not assumed.
  for (const x of rs)
    if (x.billedInputTokens !== r.billedInputTokens) throw new Error("runs billed differently");
  return {
    calls: r.calls,
    input_tokens_total: r.plain + r.read + r.write,
    plain_input_tokens: r.plain,
    cache_read_tokens: r.read,
    cache_write_tokens: r.write,
    billed_input_tokens: r.billedInputTokens,
    input_usd: Number(r.inputUsd.toFixed(6)),
    ledger_usd_incl_output: Number(r.ledgerUsd.toFixed(6)),
    median_ms: Number(median(rs.map((x) => x.ms)).toFixed(1)),
  };
};
const withCache = summary(on);
const without = summary(off);
const report = {
  bench: "prompt-cache",
  description:
    `${STEPS}-step tool loop (${STEPS + 1} model calls) through the real AnthropicProvider and runAgentLoop against a ` +
    "local Messages server simulating the prompt cache (reads at breakpoints with a 20-block look-back, writes to " +
    `the last breakpoint, min ${MIN_CACHEABLE_TOKENS} tokens, tokens = chars/4); billed input = plain + 0.1 read + 1.25 write`,
  model: MODEL,
  prices_usd_per_mtok: priceOf(MODEL),
  runs_per_setting: RUNS,
  prompt_cache_on: withCache,
  prompt_cache_off: without,
  billed_input_ratio: Number((withCache.billed_input_tokens / without.billed_input_tokens).toFixed(3)),
  input_usd_saved_per_loop: Number((without.input_usd - withCache.input_usd).toFixed(6)),
  machine: machineInfo(start),
};
writeFileSync(
  new URL("../results/prompt-cache.json", import.meta.url),
  `${JSON.stringify(report, null, 2)}\n`,
);
console.log(JSON.stringify({ on: withCache, off: without, ratio: report.billed_input_ratio }, null, 2));
