import { describe, expect, it } from "vitest";
import { clientCommandNames, parseClientFrame, ServerFrame } from "../src/index.js";

const parse = (v: unknown) => parseClientFrame(typeof v === "string" ? v : JSON.stringify(v));

describe("parseClientFrame", () => {
  it("parses every command with valid data into a typed frame", () => {
    const valid: Record<(typeof clientCommandNames)[number], unknown> = {
      chat_message: { content: "hi", provider: "openai", model: "gpt-4o", chat_context: { kind: "thread" } },
      stop: { thread_id: "t1" },
      resume_chat: { thread_id: "t1", last_seq: 0 },
      answer: { thread_id: "t1", tool_call_id: "c1", answer: "yes" },
      tool_approval_response: { approval_id: "a1", decision: "allow_for_thread" },
      client_tools_manifest: {
        tools: [{ name: "ui_notify", description: "d", input_schema: { type: "object" } }],
      },
      tool_result: { tool_call_id: "c1", ok: true, result: { shown: true } },
      ping: {},
      plan_decision: { thread_id: "t1", plan_id: "p1", decision: "revise", feedback: "fewer steps" },
      subscribe_threads: {},
      continue_turn: { thread_id: "t1" },
      regenerate: { thread_id: "t1", message_id: "m1" },
      cancel_queued: { thread_id: "t1", message_id: "m1" },
    };
    for (const command of clientCommandNames) {
      const r = parse({ command, data: valid[command], request_id: "r1" });
      expect(r, command).toMatchObject({ ok: true, frame: { command, request_id: "r1" } });
    }
  });

  it("accepts content as an array of text and image parts", () => {
    const r = parse({
      command: "chat_message",
      data: {
        content: [
          { type: "text", text: "what is this" },
          { type: "image", data: "aGk=", mime_type: "image/png" },
        ],
      },
    });
    expect(r.ok).toBe(true);
  });

  it("answers bad_json for text that is not JSON", () => {
    expect(parse("{nope")).toEqual({
      ok: false,
      error: { code: "bad_json", message: "frame is not valid JSON" },
    });
  });

  it("answers bad_request for JSON that is not an object", () => {
    for (const v of ["[]", "3", "null", '"x"']) {
      expect(parse(v)).toMatchObject({ ok: false, error: { code: "bad_request" } });
    }
  });

  it("answers unknown_command and keeps the request_id", () => {
    expect(parse({ command: "rm_rf", data: {}, request_id: "q9" })).toMatchObject({
      ok: false,
      error: { code: "unknown_command", request_id: "q9" },
    });
  });

  it("does not treat prototype keys as commands", () => {
    expect(parse({ command: "constructor", data: {} })).toMatchObject({
      ok: false,
      error: { code: "unknown_command" },
    });
    expect(parse({ command: "__proto__", data: {} })).toMatchObject({
      ok: false,
      error: { code: "unknown_command" },
    });
  });

  it("names the offending field in bad_request", () => {
    const cases: [unknown, string][] = [
      [{ command: "chat_message", data: { content: 5 } }, "data.content"],
      [{ command: "chat_message", data: {} }, "data.content"],
      [{ command: "resume_chat", data: { thread_id: "t", last_seq: -1 } }, "data.last_seq"],
      [{ command: "resume_chat", data: { thread_id: "t", last_seq: 1.5 } }, "data.last_seq"],
      [{ command: "tool_approval_response", data: { approval_id: "a", decision: "maybe" } }, "data.decision"],
      [
        { command: "chat_message", data: { content: "x", chat_context: { kind: "editor" } } },
        "data.chat_context.workflow_id",
      ],
      [{ command: "chat_message", data: { content: "x", colour: "red" } }, "data.colour"],
      [{ command: "stop", data: { thread_id: "" } }, "data.thread_id"],
      [{ command: "ping" }, "data"],
      [{ command: "ping", data: {}, extra: 1 }, "extra"],
      [{ command: 7, data: {} }, "command"],
    ];
    for (const [frame, field] of cases) {
      const r = parse(frame);
      expect(r.ok, JSON.stringify(frame)).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe("bad_request");
        expect(r.error.message.startsWith(`${field}:`), `${r.error.message} should name ${field}`).toBe(true);
      }
    }
  });

  it("refuses an image part with both or neither of uri and data", () => {
    const img = (p: object) =>
      parse({
        command: "chat_message",
        data: { content: [{ type: "image", mime_type: "image/png", ...p }] },
      });
    expect(img({}).ok).toBe(false);
    expect(img({ uri: "https://x/y.png", data: "aGk=" }).ok).toBe(false);
    expect(img({ uri: "https://x/y.png" }).ok).toBe(true);
  });

  it("accepts the deprecated fields without complaint", () => {
    const r = parse({
      command: "chat_message",
      data: { content: "x", agent_mode: true, tools: ["a"], collections: ["c"] },
    });
    expect(r.ok).toBe(true);
  });
});

describe("ServerFrame", () => {
  it("accepts the frames of a turn and rejects a frame with a wrong field", () => {
    expect(
      ServerFrame.safeParse({
        type: "chunk",
        content: "hi",
        parent_id: null,
        depth: 0,
        thread_id: "t",
        seq: 3,
      }).success,
    ).toBe(true);
    expect(ServerFrame.safeParse({ type: "chunk", content: "hi", parent_id: null, depth: -1 }).success).toBe(
      false,
    );
    expect(
      ServerFrame.safeParse({ type: "budget_exceeded", reason: "llm_calls", limit: 2, observed: 3 }).success,
    ).toBe(true);
    expect(
      ServerFrame.safeParse({ type: "budget_exceeded", reason: "money", limit: 2, observed: 3 }).success,
    ).toBe(false);
    expect(
      ServerFrame.safeParse({ type: "error", code: "busy", message: "a turn already runs" }).success,
    ).toBe(true);
  });
});
