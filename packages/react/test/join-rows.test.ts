import type { StoredMessage } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { joinRows } from "../src/join-rows.js";

const row = (id: string, content = id): StoredMessage => ({
  id,
  thread_id: "th_1",
  role: id.startsWith("u") ? "user" : "assistant",
  content,
  status: "complete",
  created_at: "2026-01-01T00:00:00.000Z",
});
const ids = (rows: StoredMessage[]) => rows.map((r) => `${r.id}:${r.content}`);

describe("joinRows: fetched rows and a replayed turn's rows, on row ids", () => {
  it("replaces the fetched rows from the turn's first row on with the replay's copies", () => {
    const fetched = [row("u1"), row("a1"), row("u2"), row("a2", "partial")];
    expect(ids(joinRows(fetched, [row("u2"), row("a2", "final"), row("a3")]))).toEqual([
      "u1:u1",
      "a1:a1",
      "u2:u2",
      "a2:final",
      "a3:a3",
    ]);
  });

  it("appends a turn that started after the fetch, and keeps the rows alone without a turn", () => {
    const fetched = [row("u1"), row("a1")];
    expect(ids(joinRows(fetched, [row("u2")]))).toEqual(["u1:u1", "a1:a1", "u2:u2"]);
    expect(ids(joinRows(fetched, []))).toEqual(["u1:u1", "a1:a1"]);
  });
});
