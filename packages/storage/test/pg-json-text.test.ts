import { describe, expect, it } from "vitest";
import { messages, turns, workflows } from "../src/postgres/schema/index.js";

describe("Postgres JSON columns (text holding JSON, as in SQLite)", () => {
  it("are text in SQL, under their snake_case names", () => {
    expect(messages.toolCalls.getSQLType()).toBe("text");
    expect(messages.toolCalls.name).toBe("tool_calls");
    expect(messages.content.name).toBe("content");
    expect(turns.suspendedState.name).toBe("suspended_state");
  });

  it("encode a value as its JSON and decode it back", () => {
    const graph = { nodes: [{ id: "a", label: "null" }], edges: [] };
    const text = workflows.graph.mapToDriverValue(graph);
    expect(text).toBe(JSON.stringify(graph));
    expect(workflows.graph.mapFromDriverValue(text)).toEqual(graph);
    // A JSON string is stored quoted, so it reads back as the string, not as other JSON.
    expect(messages.content.mapToDriverValue("[1]")).toBe('"[1]"');
    expect(messages.content.mapFromDriverValue('"[1]"')).toBe("[1]");
  });

  it("keep null as SQL NULL both ways, never the text null", () => {
    expect(messages.content.mapToDriverValue(null)).toBeNull();
    expect(messages.content.mapFromDriverValue(null)).toBeNull();
  });
});
