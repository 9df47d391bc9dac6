import { describe, expect, test } from "vitest";
import { linkAbort } from "../../src/loop/abortable.js";

describe("linkAbort: a level's signal fires with the first of its sources", () => {
  test("the target aborts with the reason of the source that fired, once", () => {
    const [a, b, target] = [new AbortController(), new AbortController(), new AbortController()];
    linkAbort(target, [a.signal, undefined, b.signal]);
    expect(target.signal.aborted).toBe(false);
    b.abort("budget");
    a.abort("stop");
    expect(target.signal.aborted).toBe(true);
    expect(target.signal.reason).toBe("budget");
  });

  test("a source that has already fired aborts the target at once", () => {
    const [a, b, target] = [new AbortController(), new AbortController(), new AbortController()];
    b.abort("gone");
    linkAbort(target, [a.signal, b.signal]);
    expect(target.signal.reason).toBe("gone");
  });

  test("after the undo no source reaches the target (a level that ended leaves no listener behind)", () => {
    const [a, target] = [new AbortController(), new AbortController()];
    const unlink = linkAbort(target, [a.signal]);
    unlink();
    a.abort("late");
    expect(target.signal.aborted).toBe(false);
  });
});
