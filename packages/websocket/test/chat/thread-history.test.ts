import type { StoredMessage } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { threadHistory } from "../../src/chat/thread-history.js";

let n = 0;
const row = (
  role: StoredMessage["role"],
  content: string,
  extra: Partial<StoredMessage> = {},
): StoredMessage => ({
  id: `m${++n}`,
  thread_id: "t",
  role,
  content,
  status: "complete",
  created_at: "2026-01-01T00:00:00.000Z",
  ...extra,
});

describe("threadHistory", () => {
  it("drops a model call a crash cut short when the call made again after the restart follows it", () => {
    const history = threadHistory([
      row("user", "go"),
      row("assistant", "Half an", { status: "interrupted" }),
      row("assistant", "The whole answer."),
      row("user", "and then?"),
      // A turn that ended interrupted (nothing followed): its partial answer stays in the history.
      row("assistant", "Cut", { status: "interrupted" }),
      row("user", "again"),
    ]);
    expect(history).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", text: "The whole answer." },
      { role: "user", content: "and then?" },
      { role: "assistant", text: "Cut" },
      { role: "user", content: "again" },
    ]);
  });
});
