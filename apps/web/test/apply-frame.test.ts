import { applyFrame, applyFrames, flushPending, hasGap } from "@agentwire-chat/client";
import type { ServerFrame } from "@agentwire-chat/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyThread } from "../src/state/thread-view.js";
import { chunk, done, nestedTurn, plainToolTurn, stamp } from "./fixtures.js";

const resumed = (last_seq: number): ServerFrame => ({
  type: "chat_resumed",
  thread_id: "th_1",
  status: "running",
  last_seq,
  replayed: 0,
});

describe("applyFrame: the seq gate", () => {
  it("takes a chunk merged for a slow socket (seq_start..seq) as the frames it stands for", () => {
    const frames = stamp("th_1", 1, [chunk("one "), chunk("two "), chunk("three"), done()]);
    const merged: ServerFrame = {
      ...(frames[0] as ServerFrame),
      content: "one two three",
      seq: 3,
      seq_start: 1,
    } as ServerFrame;
    const view = applyFrames(emptyThread(), [merged, frames[3] as ServerFrame]);
    expect(hasGap(view)).toBe(false);
    expect(view.lastSeq).toBe(4);
    expect(view).toEqual(applyFrames(emptyThread(), frames));
    // Behind a gap it waits like any frame, then applies once the gap before seq_start closes.
    const later = stamp("th_1", 1, [chunk("a"), chunk("b"), chunk("c"), chunk("d")]);
    const tail: ServerFrame = {
      ...(later[2] as ServerFrame),
      content: "cd",
      seq: 4,
      seq_start: 3,
    } as ServerFrame;
    let gapped = applyFrames(emptyThread(), [later[0] as ServerFrame, tail]);
    expect(hasGap(gapped)).toBe(true);
    gapped = applyFrame(gapped, later[1] as ServerFrame);
    expect(hasGap(gapped)).toBe(false);
    expect(gapped).toEqual(applyFrames(emptyThread(), later));
  });

  it("drops frames it has already applied (a resume overlapping live frames)", () => {
    const frames = nestedTurn();
    const once = applyFrames(emptyThread(), frames);
    // The socket dropped after seq 9; resume_chat from 6 replays 7..end, overlapping 7..9.
    const twice = applyFrames(emptyThread(), [...frames.slice(0, 9), ...frames.slice(6)]);
    expect(twice).toEqual(once);
    const allTwice = applyFrames(once, frames);
    expect(allTwice).toBe(once);
  });

  it("holds frames after a gap until the gap is filled", () => {
    const frames = plainToolTurn();
    let view = applyFrames(emptyThread(), frames.slice(0, 4));
    view = applyFrames(view, frames.slice(6, 8));
    expect(hasGap(view)).toBe(true);
    expect(view.lastSeq).toBe(4);
    view = applyFrames(view, frames.slice(4, 6));
    expect(hasGap(view)).toBe(false);
    expect(view.lastSeq).toBe(8);
    expect(applyFrames(view, frames.slice(8))).toEqual(applyFrames(emptyThread(), frames));
  });

  it("gives up on a gap once chat_resumed says nothing more is coming", () => {
    const frames = plainToolTurn();
    let view = applyFrames(emptyThread(), frames.slice(0, 4));
    view = applyFrames(view, frames.slice(5));
    expect(view.turns[0]!.running).toBe(true);
    view = applyFrame(view, resumed(16));
    expect(hasGap(view)).toBe(false);
    expect(view.lastSeq).toBe(16);
    expect(view.turns[0]!.running).toBe(false);
    expect(flushPending(view)).toEqual(view);
  });

  it("takes the first framed event as the baseline of a thread opened from history", () => {
    const frames = plainToolTurn().slice(3);
    const view = applyFrames(emptyThread("th_1"), frames);
    expect(view.lastSeq).toBe(16);
    expect(hasGap(view)).toBe(false);
  });

  it("ends with the in-order view whatever the arrival order and duplicates", () => {
    const [first, ...rest] = nestedTurn();
    const expected = applyFrames(emptyThread(), [first!, ...rest]);
    // Every later frame at least once, plus random repeats, in any order.
    const arrival = fc.array(fc.nat({ max: rest.length - 1 }), { maxLength: 40 }).chain((repeats) => {
      const all = [...rest.keys(), ...repeats];
      return fc.shuffledSubarray(all, { minLength: all.length });
    });
    fc.assert(
      fc.property(arrival, (order) => {
        // The first frame sets the baseline, as the first frame a new thread gets.
        const seen = applyFrames(emptyThread(), [first!, ...order.map((i) => rest[i]!)]);
        expect(seen).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
