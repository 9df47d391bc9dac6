/**
 * Fuzzing the socket through a real server (issue 13): 10,000 generated hostile frames per run, each
 * followed by a `ping`. Every frame gets exactly one answer the contract allows (or, for a manifest, the
 * documented nothing), never `internal`; the socket keeps answering `ping`; no frame stores a row; nothing
 * reaches Object.prototype. A failure prints its seed: rerun with FUZZ_SEED=<seed> (FUZZ_FRAMES=<n> for
 * more or fewer frames).
 */
import { randomUUID } from "node:crypto";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { UIToolProxy } from "../../src/index.js";
import { describeCase, type FuzzCase } from "./fuzz-case.js";
import { fuzzCaseArbitrary } from "./fuzz-cases.js";
import { closingCaseArbitrary } from "./fuzz-closing-cases.js";

const FRAMES = Number(process.env.FUZZ_FRAMES ?? 10_000);
/** Cases sent at once, each followed by its ping; the socket's answers are split at the pongs. */
const BATCH = 16;
const SEED =
  process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

/** Every table of the schema: a refused (or harmless) frame may add a row to none of them. */
const TABLES = [
  "users",
  "api_tokens",
  "threads",
  "messages",
  "turns",
  "llm_calls",
  "memories",
  "tool_grants",
  "workflows",
  "assets",
  "frame_batches",
  "thread_summaries",
  "scratchpad_items",
  "plans",
  "queued_messages",
];

let server: ChatTestServer;
let client: TestClient;
/** The last run did not finish cleanly: its late frames must not be read as the next case's. */
let dirty = false;
let rows: Record<string, number>;
const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).length;

beforeAll(async () => {
  // The scripted provider has no steps: a frame that started a turn anyway would store rows and fail.
  server = await startChatServer([], {
    uiTools: new UIToolProxy(),
    editorTools: [],
    // Batches sent at full speed are far over the production frame rate; the limiter is tested elsewhere.
    serverLimits: { messagesPerSecond: 1_000_000, messageBurst: 1_000_000 },
  });
  client = await server.connect();
  rows = await countRows();
});
afterAll(async () => {
  await server?.close();
});

async function countRows(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) counts[table] = await server.countRows(table);
  return counts;
}

async function openSocket(): Promise<TestClient> {
  if (dirty || client.ws.readyState !== WebSocket.OPEN) {
    client.ws.terminate();
    client = await server.connect();
    dirty = false;
  }
  return client;
}

/**
 * Sends each case followed by a ping, all at once: frames are answered in order, so what arrives
 * between two pings' pongs is the answer to the case between them.
 */
async function answersTo(cases: readonly FuzzCase[]): Promise<ServerFrame[][]> {
  const socket = await openSocket();
  dirty = true;
  const markers = cases.map(() => `fuzz-marker-${randomUUID()}`);
  cases.forEach((c, i) => {
    socket.ws.send(c.frame, { binary: typeof c.frame !== "string" });
    socket.command("ping", {}, markers[i]);
  });
  const last = markers.at(-1);
  const frames = await socket.collectUntil((f) => f.type === "pong" && f.request_id === last, 30_000);
  const answers: ServerFrame[][] = cases.map(() => []);
  let i = 0;
  for (const frame of frames) {
    if (frame.type === "pong" && frame.request_id === markers[i]) i += 1;
    else answers[i]?.push(frame);
  }
  if (i !== cases.length) throw new Error(`only ${i} of ${cases.length} pings were answered, in order`);
  dirty = false;
  return answers;
}

function outcomeOf(frame: ServerFrame): string {
  if (frame.type === "error") return frame.code;
  return frame.type === "pong" ? "pong" : `a ${frame.type} frame`;
}

/** Throws unless exactly one allowed answer came (or none where the case allows that), echoing the right request_id. */
function checkAnswers(c: FuzzCase, answers: ServerFrame[]): void {
  const got = answers.map(outcomeOf);
  const shown = answers.map((a) => JSON.stringify(a).slice(0, 300)).join(", ");
  if (got.includes("internal")) throw new Error(`answered internal (a server bug): [${shown}]`);
  const allowed =
    got.length === 1 ? c.accept.includes(got[0] as never) : got.length === 0 && c.accept.includes("none");
  if (!allowed)
    throw new Error(`expected one answer of ${c.accept.join("|")}, got ${got.length}: [${shown}]`);
  const answer = answers[0];
  if (answer === undefined || c.echo === "unchecked") return;
  const echoed = "request_id" in answer ? answer.request_id : undefined;
  const expected = c.echo === "none" ? undefined : c.echo.id;
  if (echoed !== expected) {
    throw new Error(
      `request_id ${JSON.stringify(echoed)} echoed, expected ${JSON.stringify(expected)}: ${shown}`,
    );
  }
}

/** Whether a table gained or lost rows since the previous call. */
async function rowsChanged(): Promise<boolean> {
  const now = await countRows();
  const changed = TABLES.some((t) => now[t] !== rows[t]);
  rows = now;
  return changed;
}

function checkPrototypeClean(): void {
  const probe = {} as Record<string, unknown>;
  if (
    probe.aw_polluted !== undefined ||
    Object.getOwnPropertyNames(Object.prototype).length !== prototypeKeys
  ) {
    throw new Error(
      `Object.prototype was changed: ${Object.getOwnPropertyNames(Object.prototype).join(", ")}`,
    );
  }
}

/** The first case that stores a row when sent on its own (a batch stored some). */
async function findStoringCase(cases: readonly FuzzCase[]): Promise<FuzzCase | undefined> {
  for (const c of cases) {
    await answersTo([c]);
    if (await rowsChanged()) return c;
  }
  return undefined;
}

describe("fuzzing inbound frames through a real socket", () => {
  it(`answers ${FRAMES} hostile frames once each, never internal, storing nothing (FUZZ_SEED=${SEED})`, async () => {
    let sent = 0;
    const batch = fc.array(fuzzCaseArbitrary, { minLength: BATCH, maxLength: BATCH });
    const property = fc.asyncProperty(batch, async (cases) => {
      sent += cases.length;
      const answers = await answersTo(cases).catch((error: Error) => {
        throw new Error(`${error.message}\n  in the batch:\n  ${cases.map(describeCase).join("\n  ")}`);
      });
      cases.forEach((c, i) => {
        try {
          checkAnswers(c, answers[i] ?? []);
        } catch (error) {
          throw new Error(`${(error as Error).message}\n  to ${describeCase(c)}`);
        }
      });
      if (await rowsChanged()) {
        const culprit = await findStoringCase(cases);
        throw new Error(`rows stored by ${culprit ? describeCase(culprit) : "the batch (no single frame)"}`);
      }
      checkPrototypeClean();
    });
    const details = await fc.check(property, { numRuns: Math.ceil(FRAMES / BATCH), seed: SEED });
    if (details.failed) {
      const error = details.errorInstance;
      throw new Error(
        `fuzz failed; reproduce with FUZZ_SEED=${SEED} (shrunk ${details.numShrinks} times)\n` +
          (error instanceof Error ? error.message : String(error)),
      );
    }
    expect(sent).toBeGreaterThanOrEqual(FRAMES);
    // After everything the socket still answers, and nothing was logged as a server error.
    await (await openSocket()).ping();
    const errors = server.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  }, 120_000);

  it(`closes the socket on a text frame that is not UTF-8 (1007) or over 1 MiB (1009), storing nothing (FUZZ_SEED=${SEED})`, async () => {
    const property = fc.asyncProperty(closingCaseArbitrary, async (c) => {
      const socket = await server.connect();
      socket.ws.send(c.bytes, { binary: c.binary });
      const { code } = await socket.waitForClose(10_000);
      const shown = `${c.kind} (${c.bytes.length} bytes)`;
      if (code !== c.closeCode) throw new Error(`${shown}: closed ${code}, expected ${c.closeCode}`);
      if (socket.received.length > 0)
        throw new Error(`${shown}: answered ${JSON.stringify(socket.received)}`);
      if (await rowsChanged()) throw new Error(`${shown}: rows stored`);
    });
    const details = await fc.check(property, { numRuns: 40, seed: SEED });
    if (details.failed) {
      const error = details.errorInstance;
      throw new Error(
        `reproduce with FUZZ_SEED=${SEED}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    // Other sockets are not affected.
    await (await openSocket()).ping();
  }, 60_000);
});
