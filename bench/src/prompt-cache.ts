// `pnpm bench prompt-cache [--pairs N] [--lookback]`: what Anthropic prompt caching saves on a 20-step
// tool loop (issue 39). The real AnthropicProvider (built by the registry, as the server builds it)
// runs runAgentLoop with ten tools and agentwire's own system prompt against a local Messages server
// that bills the prompt cache honestly, once with `promptCache` on and once off per pair, alternating
// which goes first, a fresh cache per run. Writes bench/results/prompt-cache.json.
import { createHash, type Hash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  agentSystemPrompt,
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
/** Model calls per loop: calls 1..19 answer with a `lookup` tool call, call 20 answers text. */
const CALLS = 20;
const flag = (name: string) => process.argv.indexOf(`--${name}`);
/** Pairs of runs (one on, one off each); the token figures are deterministic, the time is not. */
const PAIRS = flag("pairs") >= 0 ? Number(process.argv[flag("pairs") + 1]) : 5;
if (!Number.isInteger(PAIRS) || PAIRS < 1) throw new Error("--pairs wants a positive integer");
/**
 * Reads are looked up at the breakpoints only (the bench's rule). With --lookback also up to 20 blocks
 * before each breakpoint, as the API documents; for this loop the figures are the same.
 */
const LOOKBACK_BLOCKS = flag("lookback") >= 0 ? 20 : 0;
/** Anthropic's smallest cacheable prefix for Sonnet: shorter prefixes are neither read nor written. */
const MIN_CACHEABLE_TOKENS = 1024;
const OUTPUT_TOKENS = 60;

/** The one token estimate, used for every block on every side. */
const tokensOf = (x: unknown) => Math.ceil(JSON.stringify(x).length / 4);

// The workload: ten tools of a support/coding agent with full descriptions and argument schemas, the
// system prompt agentwire sends (agentSystemPrompt) plus a deployment's instructions, tool results
// of a few hundred tokens.
const unused = async () => ok("not used by this bench");
const TOOLS = [
  defineTool({
    name: "search_docs",
    description:
      "Full-text search over the product documentation (user guide, API reference, release notes). Returns " +
      "up to `limit` passages, best first, each with its page title, section anchor and a 300-character " +
      "excerpt. Use it before answering any question about product behaviour; quote the passage you rely on " +
      "and link its anchor. Queries are plain keywords; boolean operators are not supported.",
    args: z.object({
      query: z.string().describe("Keywords, 2-8 words, no operators"),
      limit: z.number().int().min(1).max(20).optional().describe("How many passages (default 5)"),
      section: z.enum(["guide", "api", "release-notes"]).optional().describe("Restrict to one part"),
    }),
    permissionClass: "safe",
    execute: unused,
  }),
  defineTool({
    name: "read_file",
    description:
      "Reads a text file of the customer's repository snapshot. The path is relative to the repository " +
      "root. Files over 200 KB are truncated (the result says so); binary files are refused. Use offset " +
      "and length (in lines) to page through long files rather than reading them whole.",
    args: z.object({
      path: z.string().describe("Path relative to the repository root"),
      offset: z.number().int().min(0).optional().describe("First line, 0-based"),
      length: z.number().int().min(1).max(2000).optional().describe("Number of lines (default 400)"),
    }),
    permissionClass: "safe",
    execute: unused,
  }),
  defineTool({
    name: "grep",
    description:
      "Searches the repository snapshot for a regular expression (RE2 syntax) and returns matching lines " +
      "with their path and line number, at most 200 matches. Use `glob` to restrict the files searched " +
      "(e.g. `src/**/*.ts`). Prefer it to reading files one by one when you look for a symbol's uses.",
    args: z.object({
      pattern: z.string().describe("RE2 regular expression"),
      glob: z.string().optional().describe("Files to search, e.g. src/**/*.ts"),
      ignoreCase: z.boolean().optional(),
    }),
    permissionClass: "safe",
    execute: unused,
  }),
  defineTool({
    name: "list_dir",
    description:
      "Lists a directory of the repository snapshot: names, kinds (file, dir, symlink) and sizes, sorted by " +
      "name. Hidden entries are listed; `.git` is not. Use depth to see a subtree at once (max 3).",
    args: z.object({
      path: z.string().describe("Directory relative to the repository root; '.' for the root"),
      depth: z.number().int().min(1).max(3).optional(),
    }),
    permissionClass: "safe",
    execute: unused,
  }),
  defineTool({
    name: "get_ticket",
    description:
      "Fetches a support ticket by id: subject, status, priority, requester, assignee, tags, the full " +
      "message history (oldest first) and internal notes. Internal notes must never be quoted to the " +
      "customer. Use it when the user names a ticket (e.g. SUP-1234) or you need the history of a case.",
    args: z.object({
      id: z
        .string()
        .regex(/^SUP-\d+$/)
        .describe("Ticket id, e.g. SUP-1234"),
      includeNotes: z.boolean().optional().describe("Include internal notes (default true)"),
    }),
    permissionClass: "safe",
    execute: unused,
  }),
  defineTool({
    name: "update_ticket",
    description:
      "Changes a ticket's status, priority, assignee or tags, and optionally adds an internal note. Every " +
      "change is recorded in the ticket's audit log under the agent's name. Never close a ticket the " +
      "customer has not confirmed as solved; set it to `pending` instead.",
    args: z.object({
      id: z.string().regex(/^SUP-\d+$/),
      status: z.enum(["open", "pending", "on-hold", "solved"]).optional(),
      priority: z.enum(["low", "normal", "high", "urgent"]).optional(),
      assignee: z.string().optional().describe("Agent e-mail"),
      addTags: z.array(z.string()).optional(),
      note: z.string().max(4000).optional().describe("Internal note, markdown"),
    }),
    permissionClass: "workspace_write",
    execute: unused,
  }),
  defineTool({
    name: "lookup",
    description:
      "Looks up an account in the billing system by account id or customer e-mail: plan, seats, billing " +
      "period, invoices of the last 12 months (number, date, amount, status), payment method (last four " +
      "digits only), open credits and the account's feature flags. Use it for any question about a bill, " +
      "a plan or a limit; never infer a customer's plan from the conversation.",
    args: z.object({
      account: z.string().describe("Account id (acct_…) or customer e-mail"),
      fields: z
        .array(z.enum(["plan", "invoices", "payment", "credits", "flags"]))
        .optional()
        .describe("Parts to return (default all)"),
    }),
    permissionClass: "safe",
    execute: async ({ account }) => ok(JSON.stringify(accountRecord(account))),
  }),
  defineTool({
    name: "issue_credit",
    description:
      "Issues a credit note to an account, applied to its next invoice. Amounts over 200 USD need a " +
      "supervisor's approval id. Give the reason in one sentence the customer could read; it appears on " +
      "the invoice.",
    args: z.object({
      account: z.string(),
      amountUsd: z.number().positive().max(5000),
      reason: z.string().max(300),
      approvalId: z.string().optional(),
    }),
    permissionClass: "workspace_write",
    execute: unused,
  }),
  defineTool({
    name: "http_get",
    description:
      "Fetches a public URL (http or https) and returns its status, content type and body as text, " +
      "truncated to 100 KB; HTML is reduced to readable text. Private addresses (localhost, 10/8, " +
      "192.168/16, link-local) are refused. Use it for status pages and public changelogs.",
    args: z.object({
      url: z.string().url(),
      headers: z.record(z.string(), z.string()).optional().describe("Extra request headers"),
    }),
    permissionClass: "network",
    execute: unused,
  }),
  defineTool({
    name: "remember",
    description:
      "Stores a short fact about the user or their organisation in long-term memory (e.g. their plan, " +
      "their preferred language, the name of their integration), to be given to later conversations. " +
      "Store only what the user said or a tool returned; never store secrets or payment details.",
    args: z.object({
      fact: z.string().max(500),
      scope: z.enum(["user", "organisation"]).optional(),
    }),
    permissionClass: "workspace_write",
    execute: unused,
  }),
];

const DEPLOYMENT_INSTRUCTIONS = [
  "You are the support agent of Acme Cloud, a hosted database service. You talk to customers and to",
  "Acme's own support staff; the user's role is given in the first message of the thread.",
  "Tone: plain, friendly, precise. No marketing language. Answer in the user's language.",
  "Billing: amounts are in USD, excluding VAT. Invoices are issued on the first day of the billing period.",
  "A plan change takes effect at once; the difference is prorated to the day and appears on the next invoice.",
  "Refunds are credits, never card refunds, except when the account is closed (then staff handle it).",
  "Limits: Starter 2 databases, 10 GB, 100 connections; Team 10 databases, 200 GB, 1,000 connections;",
  "Business unlimited databases, 2 TB, 10,000 connections; Enterprise by contract (look it up).",
  "Incidents: check the status page (https://status.acme.example) before telling a customer a service is",
  "healthy; quote the incident id and its last update time.",
  "Security: never reveal another customer's data, internal notes, or an account's full payment details.",
  "Ask for the account id or the account e-mail before any account-specific answer; verify it with lookup.",
  "Escalation: a data-loss report, a suspected breach, or a legal threat goes to a human at once:",
  "set the ticket to urgent, assign it to oncall@acme.example, and tell the customer you have done so.",
  "When several tickets are about the same account, read them all before answering any of them.",
  "Before issuing a credit, state the amount and the reason to the user and wait for their confirmation.",
  "Cite documentation passages by their anchor. Keep answers under 200 words unless asked for detail.",
]
  .join(" ")
  .repeat(3);
const SYSTEM_PROMPT = agentSystemPrompt({
  canSpawnSubtasks: false,
  toolNames: TOOLS.map((t) => t.name),
  extra: DEPLOYMENT_INSTRUCTIONS,
});

/** The `lookup` result: an account record of a few hundred tokens, different for each call. */
function accountRecord(account: string) {
  const n = Number(account.replace(/\D/g, "")) || 0;
  return {
    account,
    plan: { name: "Team", seats: 12 + (n % 5), period: "monthly", since: "2025-03-01" },
    invoices: Array.from({ length: 12 }, (_, i) => ({
      number: `INV-${2025_00 + n * 12 + i}`,
      date: `2025-${String(i + 1).padStart(2, "0")}-01`,
      amountUsd: 480 + ((n * 37 + i * 11) % 90),
      status: i === 11 ? "open" : "paid",
    })),
    payment: { method: "card", last4: String(1000 + ((n * 7919) % 9000)), expires: "2027-08" },
    credits: [{ id: `cr_${n}`, amountUsd: 25, reason: "Incident INC-2207 (partial outage)" }],
    flags: ["pitr", "read-replicas", n % 2 ? "sso" : "audit-log"],
  };
}

type Block = Record<string, unknown> & { cache_control?: unknown };
type Body = {
  tools?: Block[];
  system?: string | Block[];
  messages: { role: string; content: string | Block[] }[];
};

/** The cache bill of one request, in tokens. */
type CacheBill = { plain: number; read: number; write: number; breakpoints: number };

/**
 * The honest cache. The prompt is serialised block by block in API order (tools, system, then each
 * message's content blocks; a message's first block carries its role), without the `cache_control`
 * markers; each block's key is the hash of the prefix up to and including it. A request reads the
 * longest prefix, at one of its breakpoints, that an earlier request of the run wrote; it writes from
 * there to its last breakpoint, and those breakpoints' prefixes are stored; the rest is plain input.
 * Prefixes under 1,024 tokens are neither read nor written.
 */
class HonestCache {
  private readonly written = new Set<string>();

  bill(body: Body): CacheBill {
    const blocks: { key: string; tokens: number; marked: boolean }[] = [];
    const hash: Hash = createHash("sha256");
    let total = 0;
    const add = (block: Block | string, marked: boolean) => {
      const bare = JSON.stringify(block, (k, v) => (k === "cache_control" ? undefined : v));
      hash.update(bare);
      total += Math.ceil(bare.length / 4); // tokensOf(block without its marker)
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
    if (marks.length > 4) throw new Error(`${marks.length} cache breakpoints; the API allows 4`);
    let read = 0;
    for (const m of marks) {
      for (let i = m; i >= Math.max(0, m - LOOKBACK_BLOCKS); i--) {
        const b = blocks[i]!;
        if (b.tokens >= MIN_CACHEABLE_TOKENS && this.written.has(b.key)) {
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
    return { plain: total - read - write, read, write, breakpoints: marks.length };
  }
}

/** A Messages server: calls 1..CALLS-1 of a loop ask for a `lookup`, call CALLS answers. */
async function startMessagesServer() {
  let cache = new HonestCache();
  const bills: CacheBill[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Body;
      const bill = cache.bill(body);
      bills.push(bill);
      const call = body.messages.filter((m) => m.role === "assistant").length + 1;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(messagesStream(call, bill));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bills,
    /** A new run: a new, empty cache. */
    reset() {
      cache = new HonestCache();
      bills.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function messagesStream(call: number, bill: CacheBill): string {
  const done = call >= CALLS;
  const text = done
    ? "All 19 accounts are on the Team plan; three have an open invoice above 550 USD."
    : `Checking account ${call}.`;
  const events: { type: string; [k: string]: unknown }[] = [
    {
      type: "message_start",
      message: {
        id: `msg_${call}`,
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [],
        stop_reason: null,
        stop_sequence: null,
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
        content_block: { type: "tool_use", id: `toolu_${call}`, name: "lookup", input: {} },
      },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: JSON.stringify({ account: `acct_${1000 + call}` }) },
      },
      { type: "content_block_stop", index: 1 },
    );
  }
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: done ? "end_turn" : "tool_use", stop_sequence: null },
      usage: { output_tokens: OUTPUT_TOKENS },
    },
    { type: "message_stop" },
  );
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

type RunResult = {
  order: number;
  promptCache: boolean;
  calls: number;
  breakpointsPerCall: number;
  promptTokens: number;
  plain: number;
  read: number;
  write: number;
  outputTokens: number;
  billedInputTokens: number;
  inputUsd: number;
  usd: number;
  ledgerUsd: number;
  ledgerMatches: boolean;
  ms: number;
};

const price = priceOf(MODEL);
if (!price) throw new Error(`no price for ${MODEL}`);

async function run(
  server: Awaited<ReturnType<typeof startMessagesServer>>,
  promptCache: boolean,
  order: number,
): Promise<RunResult> {
  server.reset();
  const registry = createProviderRegistry({
    anthropic: { apiKey: "sk-ant-bench", baseURL: server.url, promptCache },
    maxRetries: 0,
  });
  const records: LlmCallRecord[] = [];
  const ctx = createLoopContext(
    { MAX_TOTAL_LLM_CALLS: 100, MAX_ITERATIONS_PER_LEVEL: CALLS + 5 },
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
        history: [
          {
            role: "user",
            content: `Look up accounts acct_1001 to acct_${1000 + CALLS - 1}, one by one, and tell me their plans and open invoices.`,
          },
        ],
      },
      tools: TOOLS,
      ctx,
    }),
    () => {},
  );
  const ms = performance.now() - t0;
  if (result.status !== "complete") throw new Error(`run ended ${result.status}`);
  if (server.bills.length !== CALLS) throw new Error(`${server.bills.length} calls, expected ${CALLS}`);
  const sum = (k: keyof CacheBill) => server.bills.reduce((a, b) => a + b[k], 0);
  const plain = sum("plain");
  const read = sum("read");
  const write = sum("write");
  const outputTokens = records.reduce((a, r) => a + r.outputTokens, 0);
  const inputUsd = (plain * price!.input + read * price!.cacheRead + write * price!.cacheWrite) / 1e6;
  const usd = inputUsd + (outputTokens * price!.output) / 1e6;
  const ledgerUsd = records.reduce((a, r) => a + r.costUsd, 0);
  // The ledger must price the usage the server reported exactly as the server's bill does.
  const ledgerTokensMatch =
    records.length === CALLS &&
    records.reduce((a, r) => a + r.inputTokens, 0) === plain + read + write &&
    records.reduce((a, r) => a + r.cacheReadTokens, 0) === read &&
    records.reduce((a, r) => a + r.cacheWriteTokens, 0) === write;
  return {
    order,
    promptCache,
    calls: server.bills.length,
    breakpointsPerCall: Math.max(...server.bills.map((b) => b.breakpoints)),
    promptTokens: plain + read + write,
    plain,
    read,
    write,
    outputTokens,
    billedInputTokens: plain + 0.1 * read + 1.25 * write,
    inputUsd,
    usd,
    ledgerUsd,
    ledgerMatches: ledgerTokensMatch && Math.abs(ledgerUsd - usd) < 1e-9,
    ms,
  };
}

const server = await startMessagesServer();
const runs: RunResult[] = [];
for (let p = 0; p < PAIRS; p++) {
  // Alternate which setting goes first in a pair.
  const first = p % 2 === 0;
  runs.push(await run(server, first, runs.length + 1));
  runs.push(await run(server, !first, runs.length + 1));
}
await server.close();

const round = (x: number, d = 0) => Number(x.toFixed(d));
const range = (xs: number[], d = 0) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: round(s[0]!, d), median: round(s[Math.floor(s.length / 2)]!, d), max: round(s.at(-1)!, d) };
};
const summary = (rs: RunResult[]) => ({
  runs: rs.length,
  calls: range(rs.map((r) => r.calls)),
  prompt_tokens: range(rs.map((r) => r.promptTokens)),
  plain_input_tokens: range(rs.map((r) => r.plain)),
  cache_read_tokens: range(rs.map((r) => r.read)),
  cache_write_tokens: range(rs.map((r) => r.write)),
  billed_input_tokens: range(
    rs.map((r) => r.billedInputTokens),
    1,
  ),
  output_tokens: range(rs.map((r) => r.outputTokens)),
  input_usd: range(
    rs.map((r) => r.inputUsd),
    6,
  ),
  usd: range(
    rs.map((r) => r.usd),
    6,
  ),
  ledger_usd: range(
    rs.map((r) => r.ledgerUsd),
    6,
  ),
  ms: range(
    rs.map((r) => r.ms),
    1,
  ),
});
const on = runs.filter((r) => r.promptCache);
const off = runs.filter((r) => !r.promptCache);
const pairRatio = (k: "billedInputTokens" | "inputUsd" | "usd") =>
  range(
    on.map((r, i) => r[k] / off[i]![k]),
    3,
  );
const ledgerAllMatch = runs.every((r) => r.ledgerMatches);
const report = {
  bench: "prompt-cache",
  description:
    `${CALLS}-call tool loop (${CALLS - 1} lookup tool calls, then the answer) through the real AnthropicProvider ` +
    `(createProviderRegistry, promptCache on/off) and runAgentLoop, ${TOOLS.length} tools, agentSystemPrompt ` +
    "+ deployment instructions, against a local Messages server billing an honest prompt cache (reads at " +
    `breakpoints${LOOKBACK_BLOCKS ? " with a 20-block look-back" : " only"}, writes up to the last breakpoint, ` +
    `prefixes < ${MIN_CACHEABLE_TOKENS} tokens neither read nor written, tokens = ceil(JSON chars / 4) per block); ` +
    "billed input = plain + 0.1 read + 1.25 write; USD at the list prices of priceOf(model)",
  model: MODEL,
  prices_usd_per_mtok: price,
  pairs: PAIRS,
  lookback_blocks: LOOKBACK_BLOCKS,
  workload: {
    system_prompt_tokens: tokensOf(SYSTEM_PROMPT),
    tools: TOOLS.length,
    lookup_result_tokens: tokensOf(JSON.stringify(accountRecord("acct_1001"))),
  },
  prompt_cache_on: summary(on),
  prompt_cache_off: summary(off),
  ratio_on_over_off: {
    billed_input_tokens: pairRatio("billedInputTokens"),
    input_usd: pairRatio("inputUsd"),
    usd_incl_output: pairRatio("usd"),
  },
  ledger_matches_server_bill: ledgerAllMatch,
  runs: runs.map((r) => ({
    ...r,
    billedInputTokens: round(r.billedInputTokens, 1),
    inputUsd: round(r.inputUsd, 6),
    usd: round(r.usd, 6),
    ledgerUsd: round(r.ledgerUsd, 6),
    ms: round(r.ms, 1),
  })),
  machine: machineInfo(start),
};
writeFileSync(
  new URL("../results/prompt-cache.json", import.meta.url),
  `${JSON.stringify(report, null, 2)}\n`,
);

const row = (cells: (string | number)[]) => console.log(cells.map((c) => String(c).padStart(12)).join(""));
row([
  "run",
  "cache",
  "prompt",
  "plain",
  "read",
  "write",
  "billed in",
  "input $",
  "total $",
  "ledger $",
  "ms",
]);
for (const r of runs) {
  row([
    r.order,
    r.promptCache ? "on" : "off",
    r.promptTokens,
    r.plain,
    r.read,
    r.write,
    round(r.billedInputTokens),
    r.inputUsd.toFixed(4),
    r.usd.toFixed(4),
    r.ledgerUsd.toFixed(4),
    r.ms.toFixed(1),
  ]);
}
console.log(
  `on/off billed input ${JSON.stringify(report.ratio_on_over_off.billed_input_tokens)}, ` +
    `ledger matches the server's bill: ${ledgerAllMatch}`,
);
if (!ledgerAllMatch) process.exitCode = 1;
