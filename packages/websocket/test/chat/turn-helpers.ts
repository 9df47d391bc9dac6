/** Helpers the chat-turn acceptance tests share: reading a turn's frames and rows. */
import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import type { TestServer } from "@agentwire-chat/testkit/harness";
import { expect } from "vitest";

/** The thread id of a turn's frames. */
export function threadOf(frames: ServerFrame[]): string {
  const frame = frames.find((f) => "thread_id" in f && typeof f.thread_id === "string");
  if (!frame || !("thread_id" in frame)) throw new Error("no frame with a thread_id");
  return frame.thread_id as string;
}

/** The stored rows of a thread, read over HTTP like a client after a reload. */
export async function storedMessages(
  server: TestServer,
  threadId: string,
  token?: string,
): Promise<StoredMessage[]> {
  const res = await server.fetch(`/api/threads/${threadId}/messages`, token === undefined ? {} : { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: StoredMessage[] }).messages;
}

/** The last `message` frame of a turn (its final assistant row). */
export function finalRow(frames: ServerFrame[]): StoredMessage {
  const last = frames.filter((f) => f.type === "message").at(-1);
  if (!last || last.type !== "message") throw new Error("no message frame");
  return last.message;
}

/** Every tool call that started has exactly one end, and nothing ends that did not start. */
export function expectStartsEnded(frames: ServerFrame[]): void {
  const updates = frames.filter((f) => f.type === "tool_call_update");
  const starts = updates.filter((f) => f.status === "start").map((f) => f.tool_call_id);
  const ends = updates.filter((f) => f.status === "end").map((f) => f.tool_call_id);
  expect([...ends].sort()).toEqual([...starts].sort());
  expect(new Set(starts).size).toBe(starts.length);
}
