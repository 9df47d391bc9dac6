import type { StampedFrame } from "@agentwire/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FrameSink } from "../../src/turns/frame-sink.js";
import { TurnRegistry } from "../../src/turns/turn-registry.js";

const sink = (id: string, userId = "u1") => {
  const got: StampedFrame[] = [];
  const s: FrameSink = { id, userId, send: (f) => got.push(f) };
  return { s, got };
};
const chunk = (content: string) => ({ type: "chunk", content, parent_id: null, depth: 0 }) as const;

describe("TurnRegistry", () => {
  it("stamps seq per thread, +1, without gaps across turns", () => {
    const reg = new TurnRegistry();
    const t1 = reg.start("th", "u1", "turn1", 0)!;
    expect(t1.emit(chunk("a")).seq).toBe(1);
    expect(t1.emit(chunk("b")).seq).toBe(2);
    reg.finish(t1);
    const t2 = reg.start("th", "u1", "turn2", 0)!;
    expect(t2.emit(chunk("c"))).toMatchObject({ seq: 3, thread_id: "th" });
  });

  it("continues from the stored last seq of a thread", () => {
    const reg = new TurnRegistry();
    expect(reg.start("th", "u1", "t", 41)!.emit(chunk("x")).seq).toBe(42);
  });

  it("refuses a second turn on a thread while one is active", () => {
    const reg = new TurnRegistry();
    const t = reg.start("th", "u1", "t1", 0)!;
    expect(reg.start("th", "u1", "t2", 0)).toBeUndefined();
    t.phase = "waiting_on_user";
    expect(reg.start("th", "u1", "t2", 0)).toBeUndefined();
    reg.finish(t);
    expect(reg.start("th", "u1", "t2", 0)).toBeDefined();
  });

  it("lets only the owner watch", () => {
    const reg = new TurnRegistry();
    const t = reg.start("th", "u1", "t", 0)!;
    const other = sink("c2", "u2");
    expect(t.watch(other.s)).toBe(false);
    t.emit(chunk("secret"));
    expect(other.got).toEqual([]);
  });

  it("forgets finished turns after the keep time", () => {
    let now = 1000;
    const reg = new TurnRegistry({ keepFinishedMs: 50, now: () => now });
    const t = reg.start("th", "u1", "t", 0)!;
    reg.finish(t);
    now += 50;
    expect(reg.get("th")).toBe(t);
    now += 1;
    expect(reg.get("th")).toBeUndefined();
  });

  it("delivers every frame exactly once, in order, whatever the disconnect and resume points", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 })), {
          maxLength: 5,
        }),
        (total, cuts) => {
          const reg = new TurnRegistry();
          const turn = reg.start("th", "u1", "t", 0)!;
          const applied: number[] = [];
          let connection = 0;
          const connect = () => {
            const id = `c${connection++}`;
            const s: FrameSink = {
              id,
              userId: "u1",
              // No client-side dedup here: the server itself must deliver each frame once.
              send: (f) => applied.push(f.seq),
            };
            return s;
          };
          let current = connect();
          turn.watch(current);
          const sorted = [...cuts].sort((a, b) => a[0] - b[0]);
          let emitted = 0;
          for (const [cutAt, offline] of sorted) {
            while (emitted < Math.min(cutAt, total)) {
              turn.emit(chunk(String(emitted++)));
            }
            turn.unwatch(current.id);
            for (let i = 0; i < offline && emitted < total; i++) turn.emit(chunk(String(emitted++)));
            current = connect();
            turn.replayTo(current, applied.at(-1) ?? 0);
          }
          while (emitted < total) turn.emit(chunk(String(emitted++)));
          expect(applied).toEqual(Array.from({ length: total }, (_, i) => i + 1));
        },
      ),
    );
  });

  it("replays without duplicates: a resumed sink receives each missed frame once", () => {
    const reg = new TurnRegistry();
    const t = reg.start("th", "u1", "t", 0)!;
    for (let i = 0; i < 5; i++) t.emit(chunk(String(i)));
    const { s, got } = sink("c1");
    expect(t.replayTo(s, 2)).toBe(3);
    t.emit(chunk("live"));
    expect(got.map((f) => f.seq)).toEqual([3, 4, 5, 6]);
  });
});
