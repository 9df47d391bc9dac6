import type { StoredMessage } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { historyLines } from "../src/chat/thread-history.js";

const row = (id: string, role: StoredMessage["role"], content: string, status = "complete"): StoredMessage =>
  ({ id, thread_id: "th_1", role, content, status, created_at: "2026-11-28T05:00:00.000Z" }) as StoredMessage;

describe("--thread's history lines", () => {
  it("mark a model call a restart cut, apart from the answer the turn went on to give", () => {
    const rows = [
      row("u1", "user", "count"),
      row("a1", "assistant", "tok0 tok1 tok29", "interrupted"),
      row("a2", "assistant", "tok0 tok1 tok2"),
    ];
    expect(historyLines(rows, false)).toEqual([
      "> count",
      "↯ interrupted: tok0 tok1 tok29",
      "tok0 tok1 tok2",
    ]);
  });

  it("leave a turn that ended interrupted as its answer so far", () => {
    const rows = [
      row("u1", "user", "count"),
      row("a1", "assistant", "Half an answer", "interrupted"),
      row("u2", "user", "again"),
    ];
    expect(historyLines(rows, false)).toEqual(["> count", "Half an answer", "> again"]);
  });
});
