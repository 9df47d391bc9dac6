import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScriptedResponder } from "@agentwire-chat/agents/testing";
import type { ServerFrame, ServerFrameOf } from "@agentwire-chat/protocol";
import { contentText } from "@agentwire-chat/protocol";
import { isDone } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";

export type InjectedCall = { name: string; args?: unknown };

/**
 * A prompt-injected model: whatever the user message says (a JSON array of tool calls) it calls, all in
 * one response; once the results are in, it answers "done" (or `after(results)` when given).
 */
export function injectedModel(): ScriptedResponder {
  return (request) => {
    const last = request.messages.at(-1);
    if (last?.role === "user") {
      const calls = JSON.parse(contentText(last.content)) as InjectedCall[];
      return { toolCalls: calls.map((c) => ({ name: c.name, args: expand(c.args ?? {}) })) };
    }
    return { text: "done" };
  };
}

/**
 * Arguments too big for a client frame are written small: `{repeat: "a", times: n}` anywhere in the args
 * becomes `"a".repeat(n)` in what the model "says".
 */
function expand(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expand);
  if (value === null || typeof value !== "object") return value;
  const o = value as Record<string, unknown>;
  if (typeof o.repeat === "string" && typeof o.times === "number" && Object.keys(o).length === 2) {
    return o.repeat.repeat(o.times);
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, expand(v)]));
}

/** Sends a chat_message whose content is the calls the injected model will make; returns the turn's frames. */
export async function injectedTurn(
  client: TestClient,
  calls: InjectedCall[],
  extra: Record<string, unknown> = {},
): Promise<ServerFrame[]> {
  client.command("chat_message", { content: JSON.stringify(calls), ...extra });
  return client.collectUntil(isDone, 20_000);
}

export type ToolEnd = ServerFrameOf<"tool_call_update">;

/**
 * The `tool_call_update` end frames of a turn, in the order the calls started (parallel-safe calls
 * may end in any order).
 */
export function toolEnds(frames: ServerFrame[]): ToolEnd[] {
  const updates = frames.filter((f): f is ToolEnd => f.type === "tool_call_update");
  const order = updates.filter((f) => f.status === "start").map((f) => f.tool_call_id);
  const ends = updates.filter((f) => f.status === "end");
  return order.flatMap((id) => ends.filter((e) => e.tool_call_id === id));
}

/** A temp directory removed by the returned cleanup. */
export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
