import { defineTool, type ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ActiveTurn } from "../../src/index.js";

/**
 * A turn with three gates: before the first model answer (g1), inside the tool (g2), before the second
 * model answer (g3). The old client opens a gate only once it has read the frame just before it, so
 * when it disconnects after k frames the turn is paused at the first gate it did not reach.
 */
type Gates = { g1: ReturnType<typeof gate>; g2: ReturnType<typeof gate>; g3: ReturnType<typeof gate> };
let gates: Gates;
const freshGates = (): Gates => ({ g1: gate(), g2: gate(), g3: gate() });
const openAll = () => {
  gates.g1.open();
  gates.g2.open();
  gates.g3.open();
};

const probe = defineTool({
  name: "probe",
  description: "Test tool: waits for the g2 gate.",
  args: z.object({}),
  permissionClass: "safe",
  execute: async () => {
    await gates.g2.promise;
    return { type: "result", output: "probed" };
  },
});

const respond = (request: ProviderRequest): ScriptedStep =>
  request.messages.some((m) => m.role === "tool")
    ? { gate: gates.g3.promise, text: ["c", "d"] }
    : { gate: gates.g1.promise, text: ["a", "b"], toolCalls: [{ id: "p1", name: "probe" }] };

/** Which frame the old client must have read before it opens each gate. */
const triggers: { gate: keyof Gates; is: (f: ServerFrame, seen: ServerFrame[]) => boolean }[] = [
  { gate: "g1", is: (f) => f.type === "agent_state" && f.state === "thinking" },
  { gate: "g2", is: (f) => f.type === "tool_call_update" && f.status === "start" },
  {
    gate: "g3",
    is: (f, seen) =>
      f.type === "agent_state" &&
      f.state === "thinking" &&
      seen.filter((s) => s.type === "agent_state" && s.state === "thinking").length === 2,
  },
];

let server: ChatTestServer;
/** The frame types of an undisturbed run of the turn, seq 1..N. */
let reference: string[];
/** The seq of each gate's trigger frame in that run. */
let triggerSeqs: Record<keyof Gates, number>;

beforeAll(async () => {
  server = await startChatServer(respond, { extraTools: [probe] });
  gates = freshGates();
  openAll();
  const client = await server.connect();
  client.command("chat_message", { content: "reference" });
  const frames = await client.collectUntil(isDone);
  expectWellFormedTurn(frames);
  reference = frames.map((f) => f.type);
  const seqOf = (g: keyof Gates) => {
    const t = triggers.find((x) => x.gate === g);
    const seen: ServerFrame[] = [];
    for (const f of frames) {
      seen.push(f);
      if (t?.is(f, seen)) return (f as { seq: number }).seq;
    }
    throw new Error(`no trigger frame for ${g}`);
  };
  triggerSeqs = { g1: seqOf("g1"), g2: seqOf("g2"), g3: seqOf("g3") };
  expect(triggerSeqs.g1).toBeLessThan(triggerSeqs.g2);
  expect(triggerSeqs.g2).toBeLessThan(triggerSeqs.g3);
  await client.close();
});
afterAll(async () => {
  await server.close();
});

/** Resolves once the server's turn has emitted the frame with `seq` (a server-side observer, no socket). */
function emitted(turn: ActiveTurn, seq: number): Promise<void> {
  if (turn.lastSeq >= seq) return Promise.resolve();
  return new Promise((resolve) => {
    const id = `observer-${seq}-${Math.random()}`;
    turn.watch({
      id,
      userId: turn.userId,
      send: (frame) => {
        if (frame.seq >= seq) {
          turn.unwatch(id);
          resolve();
        }
      },
    });
  });
}

/** Reads k frames with the old client, opening each gate once its trigger frame was read. */
async function readAndOpen(client: TestClient, k: number): Promise<ServerFrame[]> {
  const seen: ServerFrame[] = [];
  while (seen.length < k) {
    const frame = await client.nextFrame();
    seen.push(frame);
    for (const t of triggers) if (t.is(frame, seen)) gates[t.gate].open();
  }
  return seen;
}

/** The seq after which the turn is paused once the old client read k frames: the first gate it did not open. */
function pausedAfter(k: number): number | undefined {
  return Object.values(triggerSeqs)
    .filter((seq) => seq > k)
    .sort((x, y) => x - y)[0];
}

type Mode = "finish-away" | "progress-away" | "paused-away";

describe("resume_chat after a disconnect", () => {
  it("delivers every frame exactly once, in order, for every cut point and what the turn does meanwhile", async () => {
    const n = reference.length;
    const modes: Mode[] = ["finish-away", "progress-away", "paused-away"];
    let runs = 0;
    for (let k = 1; k < n; k++) {
      for (const mode of modes) {
        const label = `cut after ${k} frames, ${mode}`;
        gates = freshGates();
        const old = await server.connect();
        old.command("chat_message", { content: label });
        const seenOld = await readAndOpen(old, k);
        await old.close();
        const threadId = (seenOld[0] as { thread_id: string }).thread_id;
        const turn = server.chat.turns.get(threadId);
        if (!turn) throw new Error(`${label}: no turn`);
        const pause = pausedAfter(k);

        if (mode === "finish-away") {
          openAll();
          await emitted(turn, n);
        } else if (mode === "progress-away" && pause !== undefined) {
          // Open the gate the turn waits at and let it run to the next one (or to its end), unwatched.
          const next = Object.values(triggerSeqs).find((s) => s > pause) ?? n;
          const closedGate = (["g1", "g2", "g3"] as const).find((g) => triggerSeqs[g] === pause);
          if (closedGate) gates[closedGate].open();
          await emitted(turn, next);
        }

        const fresh = await server.connect();
        const lastSeq = (seenOld.at(-1) as { seq: number }).seq;
        fresh.command("resume_chat", { thread_id: threadId, last_seq: lastSeq });
        const replay = await fresh.collectUntil((f) => f.type === "chat_resumed");
        const resumed = replay.pop() as Extract<ServerFrame, { type: "chat_resumed" }>;
        expect(resumed.replayed, label).toBe(replay.length);
        expect(resumed.last_seq, label).toBe((replay.at(-1) as { seq: number } | undefined)?.seq ?? lastSeq);
        if (mode === "finish-away") expect(resumed.status, label).toBe("finished");
        if (mode === "paused-away" && pause !== undefined) expect(resumed.status, label).toBe("running");
        let live: ServerFrame[] = [];
        if (resumed.status === "running") {
          openAll();
          live = await fresh.collectUntil(isDone);
          expect(
            live.every((f) => "seq" in f && (f.seq ?? 0) > resumed.last_seq),
            label,
          ).toBe(true);
        } else {
          expect(resumed.status, label).toBe("finished");
          expect(replay.some(isDone) || lastSeq === n, label).toBe(true);
        }
        const union = [...seenOld, ...replay, ...live];
        expect(
          union.map((f) => (f as { seq: number }).seq),
          label,
        ).toEqual(Array.from({ length: n }, (_, i) => i + 1));
        expect(
          union.map((f) => f.type),
          label,
        ).toEqual(reference);
        expect(union.map((f) => (f as { thread_id: string }).thread_id).every((t) => t === threadId)).toBe(
          true,
        );
        // Nothing else comes after the end.
        await fresh.ping();
        expect(fresh.received.filter((f) => f.type !== "pong").length, label).toBe(
          replay.length + 1 + live.length,
        );
        await fresh.close();
        runs += 1;
      }
    }
    expect(runs).toBe((n - 1) * modes.length);
  });

  it("replays a finished turn from its buffer, and nothing when last_seq is its end", async () => {
    gates = freshGates();
    openAll();
    const client = await server.connect();
    client.command("chat_message", { content: "finished" });
    const frames = await client.collectUntil(isDone);
    await client.close();
    const threadId = (frames[0] as { thread_id: string }).thread_id;
    const n = frames.length;

    const again = await server.connect();
    again.command("resume_chat", { thread_id: threadId, last_seq: 4 });
    const replay = await again.collectUntil((f) => f.type === "chat_resumed");
    const resumed = replay.pop();
    expect(resumed).toMatchObject({ type: "chat_resumed", status: "finished", last_seq: n, replayed: n - 4 });
    expect(replay).toEqual(frames.slice(4));

    again.command("resume_chat", { thread_id: threadId, last_seq: n });
    expect(await again.nextFrame()).toMatchObject({
      type: "chat_resumed",
      thread_id: threadId,
      status: "finished",
      last_seq: n,
      replayed: 0,
    });
    await again.ping();
    expect(again.received.filter((f) => f.type !== "pong")).toHaveLength(n - 4 + 2);
  });

  it("replays a finished turn after a restart from the frame log on disk", async () => {
    gates = freshGates();
    openAll();
    const client = await server.connect();
    client.command("chat_message", { content: "forgotten" });
    const frames = await client.collectUntil(isDone);
    const threadId = (frames[0] as { thread_id: string }).thread_id;
    // A new process over the same file has nothing in memory; the log's frames are on disk.
    const fresh = await startChatServer([], { dbPath: server.dbPath });
    try {
      const other = await fresh.connect();
      other.command("resume_chat", { thread_id: threadId, last_seq: 2 });
      const replay = await other.collectUntil((f) => f.type === "chat_resumed");
      expect(replay.pop()).toMatchObject({
        type: "chat_resumed",
        status: "finished",
        last_seq: frames.length,
        replayed: frames.length - 2,
      });
      expect(replay).toEqual(frames.slice(2));
    } finally {
      await fresh.close();
    }
  });
});
