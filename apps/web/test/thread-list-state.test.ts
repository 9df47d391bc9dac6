import type { ThreadListing } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { withThreadState } from "../src/state/thread-list-state.js";

const at = "2026-11-21T10:00:00.000Z";
const threads: ThreadListing[] = [
  { id: "t1", title: "One", created_at: at, updated_at: at, state: "idle" },
  { id: "t2", title: "Two", created_at: at, updated_at: at, state: "waiting_user", question: "Which?" },
];

describe("thread list live state", () => {
  it("sets a thread's badge from thread_state and leaves the others alone", () => {
    const next = withThreadState(threads, { thread_id: "t1", state: "running" });
    expect(next?.map((t) => [t.id, t.state, t.question])).toEqual([
      ["t1", "running", undefined],
      ["t2", "waiting_user", "Which?"],
    ]);
  });

  it("shows the question while waiting and drops it once the thread moves on", () => {
    const waiting = withThreadState(threads, {
      thread_id: "t1",
      state: "waiting_user",
      question: "Blue or red?",
    });
    expect(waiting?.[0]).toMatchObject({ state: "waiting_user", question: "Blue or red?" });
    const idle = withThreadState(threads, { thread_id: "t2", state: "idle" });
    expect(idle?.[1]).not.toHaveProperty("question");
    expect(idle?.[1]?.state).toBe("idle");
  });

  it("says when the list does not know the thread (made in another tab)", () => {
    expect(withThreadState(threads, { thread_id: "t9", state: "running" })).toBeUndefined();
  });
});
