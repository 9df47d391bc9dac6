import type { StoredMessage } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { lastUserContent, turnPosition } from "../../src/edges/ai-sdk/client-messages.js";
import type { SendRequest } from "../../src/edges/ai-sdk/transport-request.js";
import { placement, turnsOf } from "../../src/edges/branch-turns.js";

const row = (
  id: string,
  role: StoredMessage["role"],
  parent: string | null,
  content = id,
): StoredMessage => ({
  id,
  thread_id: "t",
  role,
  content,
  status: "complete",
  created_at: "2026-01-01T00:00:00.000Z",
  parent_message_id: parent,
});

// Two turns; the second called a tool, and a message was steered in after its result.
const branch = [
  row("u1", "user", null, "first"),
  row("a1", "assistant", "u1"),
  row("u2", "user", "a1", "second"),
  row("a2", "assistant", "u2"),
  row("t2", "tool", "a2"),
  row("s2", "user", "t2", "steered"),
  row("a2b", "assistant", "s2"),
];

type Msg = SendRequest["messages"][number];
const user = (id: string, text = id): Msg => ({ id, role: "user", parts: [{ type: "text", text }] });
const assistant = (id: string): Msg => ({ id, role: "assistant", parts: [{ type: "text", text: "…" }] });

describe("placing a client's message on the stored branch", () => {
  const turns = turnsOf(branch);

  it("reads a branch as turns: a user row after a tool row is steered into its turn", () => {
    expect(turns.map((t) => [t.userMessageId, t.parentId, t.text, t.rowIds])).toEqual([
      ["u1", null, "first", ["u1", "a1"]],
      ["u2", "a1", "second", ["u2", "a2", "t2", "s2", "a2b"]],
    ]);
  });

  it("anchors on the edge's assistant ids (aw-<user id>) and on stored ids", () => {
    // The whole conversation plus a new message: past the last turn, it follows the leaf.
    const all = [user("c1"), assistant("aw-u1"), user("c2"), assistant("aw-u2"), user("c3")];
    expect(turnPosition(all, 4, turns)).toBe(2);
    expect(placement(turns, 2)).toEqual({});
    // The second message edited: in place of turn 1, following what it followed.
    const edit = [user("c1"), assistant("aw-u1"), user("c2x")];
    expect(turnPosition(edit, 2, turns)).toBe(1);
    expect(placement(turns, 1)).toEqual({ parent_message_id: "a1" });
    // History loaded from GET messages (stored ids).
    expect(turnPosition([user("u1"), assistant("a1"), user("new")], 2, turns)).toBe(1);
    // A stored user message itself is its turn (what regenerate answers).
    expect(turnPosition([user("u1"), assistant("a1"), user("u2")], 2, turns)).toBe(1);
  });

  it("counts from the start without an anchor, and says nothing when only the new message is sent", () => {
    expect(turnPosition([user("c1"), assistant("x"), user("c2")], 2, turns)).toBe(1);
    expect(turnPosition([user("c9")], 0, turns)).toBeUndefined();
    expect(placement(turns, undefined)).toEqual({});
    expect(placement(turns, 0)).toEqual({ parent_message_id: null });
  });
});

describe("the content of the last user message", () => {
  const send = (parts: Msg["parts"]) => [{ id: "m", role: "user" as const, parts }];

  it("is its text, with image file parts as image parts before it", () => {
    expect(lastUserContent(send([{ type: "text", text: "hi" }]))).toBe("hi");
    expect(
      lastUserContent(
        send([
          { type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA" },
          { type: "file", mediaType: "image/jpeg", url: "https://example.com/a.jpg" },
          { type: "text", text: "what?" },
        ]),
      ),
    ).toEqual([
      { type: "image", data: "AAAA", mime_type: "image/png" },
      { type: "image", uri: "https://example.com/a.jpg", mime_type: "image/jpeg" },
      { type: "text", text: "what?" },
    ]);
    expect(
      lastUserContent(send([{ type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA" }])),
    ).toEqual([{ type: "image", data: "AAAA", mime_type: "image/png" }]);
  });

  it("refuses files that are not images, and images it cannot pass on", () => {
    const problem = (parts: Msg["parts"]) => (lastUserContent(send(parts)) as { problem: string }).problem;
    expect(
      problem([{ type: "file", mediaType: "application/pdf", url: "data:application/pdf;base64,AA" }]),
    ).toMatch(/application\/pdf is not supported/);
    expect(problem([{ type: "file", mediaType: "image/png", url: "data:image/png,raw" }])).toMatch(/base64/);
    expect(problem([{ type: "file", mediaType: "image/png", url: "file:///etc/passwd" }])).toMatch(
      /http\(s\) URL/,
    );
    expect(problem([{ type: "text", text: "  " }])).toMatch(/no text/);
  });
});
