/**
 * The SDK's turn (seq gate, end, text) and tree on the frame sequences recorded from the real server
 * (packages/protocol/fixtures/frames), delivered whole and as a dropped socket delivers them: a prefix,
 * then a resume replay that overlaps what was already seen.
 */
import { readdirSync, readFileSync } from "node:fs";
import { type ServerFrame, ServerFrame as ServerFrameSchema } from "@agentwire-chat/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Turn, type TurnHost } from "../src/turn.js";

const DIR = new URL("../../protocol/fixtures/frames/", import.meta.url);
const scenarios = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -".json".length));

function recorded(name: string): ServerFrame[] {
  const raw = JSON.parse(readFileSync(new URL(`${name}.json`, DIR), "utf8")) as { frames: unknown[] };
  return raw.frames.map((f) => ServerFrameSchema.parse(f));
}

/** A host that records resumes and never sends. */
function host(): TurnHost & { heals: number } {
  return {
    heals: 0,
    command: async () => {},
    heal() {
      this.heals++;
    },
    forget: () => {},
  };
}

/** What the app sees of a finished turn. */
async function seen(turn: Turn) {
  const frames: ServerFrame[] = [];
  for await (const f of turn.frames) frames.push(f);
  return { frames, end: await turn.done, text: await turn.text(), tree: turn.tree };
}

/** How each recording ends, as the turn reports it. */
const expected: Record<string, { status: string; text: string; code?: string }> = {
  "plain-answer": { status: "complete", text: "Hello there!" },
  "tool-call": { status: "complete", text: "It says: buy milk." },
  "parallel-subtasks": { status: "complete", text: "final: result-A | result-B" },
  "ask-user": { status: "complete", text: "" },
  "stop-mid-stream": { status: "stopped", text: "" },
  "budget-exceeded": { status: "budget_exceeded", text: "" },
  "provider-error": { status: "error", text: "", code: "provider_error" },
};

describe("recorded turns through the SDK's Turn", () => {
  it("knows every recording", () => {
    expect(scenarios.sort()).toEqual(Object.keys(expected).sort());
  });

  for (const name of scenarios) {
    it(`${name}: every frame once, the stored status, the final message as text`, async () => {
      const frames = recorded(name);
      const turn = new Turn(host(), true, "r1");
      for (const f of frames) turn.receive(f);
      const { frames: got, end, text, tree } = await seen(turn);
      expect(got).toEqual(frames.filter((f) => "seq" in f && f.seq !== undefined));
      const want = expected[name];
      expect(end.status).toBe(want?.status);
      expect(end.usage).toMatchObject({ llm_calls: expect.any(Number) });
      if (want?.code) expect(end.error?.code).toBe(want.code);
      const finalRow = frames.findLast((f) => f.type === "message" && f.message.role === "assistant");
      const stored = finalRow?.type === "message" ? finalRow.message.content : "";
      expect(text).toBe(typeof stored === "string" ? stored : "");
      if (want?.text) expect(text).toBe(want.text);
      expect(tree?.running).toBe(false);
      expect(turn.errors).toEqual([]);
    });
  }

  it("any drop point and any overlapping replay gives the same frames, tree and end as one delivery", async () => {
    for (const name of scenarios) {
      const frames = recorded(name);
      const once = new Turn(host(), true, "r1");
      for (const f of frames) once.receive(f);
      const whole = await seen(once);
      await fc.assert(
        fc.asyncProperty(fc.nat(frames.length), fc.nat(frames.length), async (cut, back) => {
          const turn = new Turn(host(), true, "r1");
          for (const f of frames.slice(0, cut)) turn.receive(f);
          // The resume replays from an earlier seq than the one the turn has: duplicates are dropped.
          const from = Math.max(0, cut - back);
          for (const f of frames.slice(from)) turn.receive(f);
          const again = await seen(turn);
          expect(again.frames).toEqual(whole.frames);
          expect(again.tree).toEqual(whole.tree);
          expect(again.end).toEqual(whole.end);
        }),
        { numRuns: 40 },
      );
    }
  });

  it("frames before the turn's own request_id (an earlier turn's replay) are not the turn's", async () => {
    const earlier = recorded("plain-answer");
    const mine = recorded("tool-call").map((f) =>
      "request_id" in f && f.request_id === "r1" ? { ...f, request_id: "r2" } : f,
    );
    const turn = new Turn(host(), true, "r2");
    for (const f of [...earlier, ...mine]) turn.receive(f);
    expect(await turn.text()).toBe("It says: buy milk.");
    expect((await seen(turn)).frames[0]).toMatchObject({ type: "thread", request_id: "r2" });
  });

  it("a nested turn asks to resume at a gap and takes the missing frames from the replay", async () => {
    const frames = recorded("parallel-subtasks");
    const h = host();
    const turn = new Turn(h, true, "r1");
    const missing = frames.slice(5, 8);
    for (const f of [...frames.slice(0, 5), ...frames.slice(8, 10)]) turn.receive(f);
    expect(h.heals).toBe(1);
    for (const f of [...missing, ...frames.slice(8)]) turn.receive(f);
    const { frames: got } = await seen(turn);
    expect(got).toEqual(frames);
    expect(turn.errors).toEqual([]);
  });

  it("a sent turn whose frames the replay no longer holds ends unknown, not complete", async () => {
    const turn = new Turn(host(), true, "r9", "th_1");
    for (const f of recorded("plain-answer")) turn.receive(f);
    turn.receive({ type: "chat_resumed", thread_id: "th_1", status: "finished", last_seq: 8, replayed: 8 });
    expect((await turn.done).status).toBe("unknown");
    expect(await seen(turn).then((s) => s.frames)).toEqual([]);
  });
});
