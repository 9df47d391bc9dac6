// A client of `pnpm bench overload`: one socket (offering agentwire.v1+nested), one turn. It counts
// what admission control tells it: `agent_state {state: "queued"}` (the turn waits for the server to
// have room) and `error {code: "overloaded"}` (the queue is full; nothing was started), which it
// answers by sending the same chat_message again after a backoff, until its turn completes.
import WebSocket from "ws";
import { monoMs, NESTED_SUBPROTOCOLS, quantile } from "./_server.js";
import { TurnFrames } from "./_turn-check.js";

export type TurnClientOptions = {
  /** The chat_message text; `bench:chunks=N` and `bench:tag=NAME` in it steer the paced SSE server. */
  content: string;
  /** The first retry's backoff; each further one doubles, up to RETRY_MAX_MS, with jitter. */
  retryMs: number;
  /** Keep each text chunk's arrival time (monoMs). */
  keepArrivals: boolean;
  onDone(client: TurnClient): void;
  /** Called after each frame that carried text. */
  onText?(client: TurnClient): void;
};

const RETRY_MAX_MS = 4000;
const ERROR = Buffer.from('{"type":"error"');
const AGENT_STATE = Buffer.from('{"type":"agent_state"');
const QUEUED = Buffer.from('"state":"queued"');
const startsWith = (data: Buffer, prefix: Buffer) => data.subarray(0, prefix.length).equals(prefix);

export class TurnClient {
  turn = new TurnFrames();
  arrivals: number[] = [];
  /** monoMs of the first chat_message and of the done. */
  sentAt = 0;
  doneAt = 0;
  /** The turn waited in the admission queue at least once. */
  queued = false;
  /** `overloaded` refusals this turn got (each retried). */
  refusals = 0;
  /** Refusals that came after frames of the turn had arrived (admission should refuse before any). */
  refusedAfterFrames = 0;
  /** Other error codes, by code. */
  errors: Record<string, number> = {};

  private constructor(
    readonly ws: WebSocket,
    private readonly options: TurnClientOptions,
  ) {
    ws.on("message", (data: Buffer) => this.onFrame(data));
  }

  static open(url: string, options: TurnClientOptions): Promise<TurnClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, NESTED_SUBPROTOCOLS, { perMessageDeflate: false });
      const client = new TurnClient(ws, options);
      ws.once("open", () => resolve(client));
      ws.once("error", reject);
    });
  }

  /** Sends the turn's chat_message (the first time; retries send it again themselves). */
  start(): void {
    this.sentAt = monoMs();
    this.send();
  }

  get done(): boolean {
    return this.doneAt > 0;
  }

  /** Done once, seqs 1..done in order without gaps, and every text chunk the provider sent. */
  ok(chunks: number): boolean {
    return this.done && this.turn.nestedOk() && this.turn.rootText === chunks;
  }

  private send(): void {
    this.ws.send(JSON.stringify({ command: "chat_message", data: { content: this.options.content } }));
  }

  private onFrame(data: Buffer): void {
    if (startsWith(data, ERROR)) {
      this.onError(data);
      return;
    }
    if (startsWith(data, AGENT_STATE) && data.includes(QUEUED)) this.queued = true;
    const text = this.turn.add(data);
    if (text > 0) {
      if (this.options.keepArrivals) {
        const now = monoMs();
        for (let i = 0; i < text; i++) this.arrivals.push(now);
      }
      this.options.onText?.(this);
    }
    if (this.turn.dones === 1 && this.doneAt === 0) {
      this.doneAt = monoMs();
      this.options.onDone(this);
    }
  }

  private onError(data: Buffer): void {
    const { code } = JSON.parse(String(data)) as { code: string };
    if (code !== "overloaded") {
      this.errors[code] = (this.errors[code] ?? 0) + 1;
      return;
    }
    this.refusals += 1;
    if (this.turn.frames > 0) {
      // Not what admission promises; start the count afresh so the retry's turn is checked alone.
      this.refusedAfterFrames += 1;
      this.turn = new TurnFrames();
      this.arrivals = [];
    }
    const backoff = Math.min(RETRY_MAX_MS, this.options.retryMs * 2 ** (this.refusals - 1));
    setTimeout(() => this.send(), backoff * (0.5 + Math.random() / 2));
  }
}

/** Opens `n` clients, `parallel` handshakes at a time. */
export async function openClients(
  url: string,
  n: number,
  parallel: number,
  options: (i: number) => TurnClientOptions,
): Promise<TurnClient[]> {
  const clients: TurnClient[] = [];
  while (clients.length < n) {
    const batch = Math.min(parallel, n - clients.length);
    const from = clients.length;
    clients.push(
      ...(await Promise.all(
        Array.from({ length: batch }, (_, k) => TurnClient.open(url, options(from + k))),
      )),
    );
  }
  return clients;
}

/** `done` resolves once `tick` has been called `count` times. */
export function countdown(count: number) {
  let left = count;
  let settle: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  if (count === 0) settle();
  const tick = () => {
    left -= 1;
    if (left === 0) settle();
  };
  return { done, tick };
}

/** True when `promise` settles within `ms`, false when the time runs out first. */
export function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

/** What a set of turns did: completions, checks, admission, duration (first chat_message → done). */
export function summarize(clients: readonly TurnClient[], chunks: number) {
  const durations = clients.filter((c) => c.done).map((c) => c.doneAt - c.sentAt);
  const errors: Record<string, number> = {};
  for (const c of clients)
    for (const [code, n] of Object.entries(c.errors)) errors[code] = (errors[code] ?? 0) + n;
  const failed = clients.filter((c) => !c.ok(chunks));
  return {
    turns: clients.length,
    completed: clients.filter((c) => c.done).length,
    failed_checks: failed.length,
    queued: clients.filter((c) => c.queued).length,
    refused: clients.filter((c) => c.refusals > 0).length,
    refusals: clients.reduce((n, c) => n + c.refusals, 0),
    refused_after_frames: clients.reduce((n, c) => n + c.refusedAfterFrames, 0),
    other_errors: errors,
    turn_ms: {
      p50: Math.round(quantile(durations, 0.5)),
      p99: Math.round(quantile(durations, 0.99)),
      max: Math.round(quantile(durations, 1)),
    },
    first_sent_at: Math.min(...clients.map((c) => c.sentAt)),
    last_done_at: Math.max(...clients.map((c) => c.doneAt)),
    problems: failed.slice(0, 5).map((c) => ({
      done: c.done,
      dones: c.turn.dones,
      seqs: c.turn.seqs,
      done_seq: c.turn.doneSeq,
      gaps: c.turn.gaps,
      not_increasing: c.turn.notIncreasing,
      text_chunks: c.turn.rootText,
      refusals: c.refusals,
      errors: c.errors,
    })),
  };
}
export type TurnsSummary = ReturnType<typeof summarize>;
