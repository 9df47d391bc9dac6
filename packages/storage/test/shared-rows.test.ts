import { ScratchpadOpError } from "@agentwire-chat/agents";
import type { ScratchpadItem } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { newLlmCallRow } from "../src/contract/llm-call-rows.js";
import { newMessageRow } from "../src/contract/message-rows.js";
import { toScratchpadRow } from "../src/contract/scratchpad-rows.js";
import { newTurnRow } from "../src/contract/turn-rows.js";
import { workflowUpdateColumns } from "../src/contract/workflow-rows.js";
import { scratchpadEditWrite, scratchpadOpWrites } from "../src/shared/scratchpad-writes.js";

// The rows both dialects write come from these functions; the conformance suite runs them through
// each database, these pin what they build on their own.
const now = Date.parse("2026-01-02T03:04:05.678Z");
const first: ScratchpadItem = {
  id: "s1",
  kind: "task",
  title: "first",
  status: "active",
  related_ids: ["x"],
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
};

describe("the rows shared by both dialects", () => {
  it("a message row: absent fields null, seq left to the dialect, created now", () => {
    const row = newMessageRow("u1", "t1", { role: "user", status: "complete", content: "hi" }, now);
    expect(row).toMatchObject({ threadId: "t1", userId: "u1", seq: 0, role: "user", content: "hi" });
    expect(row.turnId).toBeNull();
    expect(row.toolCalls).toBeNull();
    expect(row.usage).toBeNull();
    expect(row.createdAt).toBe(now);
    expect(newMessageRow("u1", "t1", { role: "user", status: "complete" }, now).id).not.toBe(row.id);
  });

  it("a turn's new row is whole: running, what the start names, every other column empty", () => {
    expect(newTurnRow("u1", "t1", { id: "turn-1", model: "m" }, now)).toEqual({
      id: "turn-1",
      threadId: "t1",
      userId: "u1",
      status: "running",
      usage: null,
      error: null,
      suspendedState: null,
      startedAt: now,
      endedAt: null,
      provider: null,
      model: "m",
      requestId: null,
      checkpoint: null,
      recoveries: 0,
    });
    expect(newTurnRow("u1", "t1", {}, now).id).not.toBe(newTurnRow("u1", "t1", {}, now).id);
  });

  it("an llm call row rounds the latency and stores a missing error as null", () => {
    const row = newLlmCallRow(
      "u1",
      "t1",
      "turn-1",
      {
        provider: "p",
        model: "m",
        operation: "turn",
        depth: 1,
        parentId: "n1",
        inputTokens: 3,
        outputTokens: 4,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        costUsd: 0.5,
        costKnown: true,
        latencyMs: 12.6,
        startedAt: now - 13,
      },
      now,
    );
    expect(row).toMatchObject({
      turnId: "turn-1",
      latencyMs: 13,
      error: null,
      createdAt: now,
      parentId: "n1",
    });
  });

  it("a workflow update writes only the fields given, and always the time", () => {
    expect(workflowUpdateColumns({ name: "n" }, now)).toEqual({ name: "n", updatedAt: now });
    expect(workflowUpdateColumns({}, now)).toEqual({ updatedAt: now });
  });

  it("scratchpad ops: updates by id, new rows after the current ones, changed items in order", () => {
    const writes = scratchpadOpWrites(
      "u1",
      "t1",
      [first],
      [
        { op: "resolve", id: "s1" },
        { op: "add", kind: "note", title: "second" },
      ],
      now,
    );
    expect(writes.updates).toEqual([
      {
        id: "s1",
        columns: {
          kind: "task",
          title: "first",
          details: null,
          status: "resolved",
          relatedIds: ["x"],
          updatedAt: now,
        },
      },
    ]);
    expect(writes.inserts).toHaveLength(1);
    expect(writes.inserts[0]).toMatchObject({
      id: "s2",
      threadId: "t1",
      userId: "u1",
      position: 2,
      title: "second",
    });
    expect(writes.items.map((item) => [item.id, item.status])).toEqual([
      ["s1", "resolved"],
      ["s2", "active"],
    ]);
  });

  it("scratchpad ops naming an id the thread lacks are refused, for the model", () => {
    expect(() => scratchpadOpWrites("u1", "t1", [first], [{ op: "discard", id: "s9" }], now)).toThrow(
      ScratchpadOpError,
    );
  });

  it("a user's scratchpad edit writes the edited columns at `now`, leaving related ids alone", () => {
    const { item, columns } = scratchpadEditWrite(
      toScratchpadRow("u1", "t1", first, 1),
      { title: "renamed" },
      now,
    );
    expect(item).toMatchObject({ id: "s1", title: "renamed", related_ids: ["x"] });
    expect(columns).toEqual({
      kind: "task",
      title: "renamed",
      details: null,
      status: "active",
      updatedAt: now,
    });
  });
});
