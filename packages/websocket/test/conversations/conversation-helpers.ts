/**
 * What the conversation-tree tests (issue 38) share: reading a thread's branches, queue and current
 * leaf over HTTP like a client, and what the scripted model was sent.
 */
import type { ModelMessage, ProviderRequest } from "@agentwire-chat/agents";
import type { QueuedMessage, ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import type { TestClient, TestServer } from "@agentwire-chat/testkit/harness";
import { expect } from "vitest";

export type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

/** The text of a model message (a user message's parts joined). */
export function textOf(m: ModelMessage): string {
  if (m.role === "assistant") return m.text;
  if (typeof m.content === "string") return m.content;
  return m.content.map((p) => ("text" in p && typeof p.text === "string" ? p.text : `[${p.type}]`)).join("");
}

/** A model request as `role:text` lines, oldest first (tool results as `tool:<id>`). */
export function seen(request: ProviderRequest | undefined): string[] {
  if (!request) throw new Error("no such model request");
  return request.messages.map((m) => (m.role === "tool" ? `tool:${m.toolCallId}` : `${m.role}:${textOf(m)}`));
}

/** The last user text of a model request. */
export function lastUser(request: ProviderRequest): string {
  const user = request.messages.filter((m) => m.role === "user").at(-1);
  return user ? textOf(user) : "";
}

/** GET /api/threads/:id/messages (optionally ?leaf=): the status and, on 200, the rows. */
export async function branch(
  server: TestServer,
  threadId: string,
  leaf?: string,
  token?: string,
): Promise<{ status: number; messages: StoredMessage[]; body: unknown }> {
  const query = leaf === undefined ? "" : `?leaf=${encodeURIComponent(leaf)}`;
  const res = await server.fetch(
    `/api/threads/${threadId}/messages${query}`,
    token === undefined ? {} : { token },
  );
  const body = (await res.json()) as { messages?: StoredMessage[] };
  return { status: res.status, messages: body.messages ?? [], body };
}

/** The current branch's rows (200 asserted). */
export async function rows(server: TestServer, threadId: string, token?: string): Promise<StoredMessage[]> {
  const got = await branch(server, threadId, undefined, token);
  expect(got.status, JSON.stringify(got.body)).toBe(200);
  return got.messages;
}

/** GET /api/threads/:id/queue (200 asserted). */
export async function queueOf(
  server: TestServer,
  threadId: string,
  token?: string,
): Promise<QueuedMessage[]> {
  const res = await server.fetch(`/api/threads/${threadId}/queue`, token === undefined ? {} : { token });
  const body = (await res.json()) as { queued: QueuedMessage[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.queued;
}

/** PUT /api/threads/:id/current_leaf: the status and body. */
export async function putLeaf(
  server: TestServer,
  threadId: string,
  messageId: string,
  token?: string,
): Promise<{ status: number; body: { current_leaf_id?: string; code?: string } }> {
  const res = await server.fetch(`/api/threads/${threadId}/current_leaf`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message_id: messageId }),
    ...(token !== undefined && { token }),
  });
  return { status: res.status, body: (await res.json()) as { current_leaf_id?: string; code?: string } };
}

/** The rows as `role:content` (tool rows as `tool:<call id>`), for order assertions. */
export function shape(messages: StoredMessage[]): string[] {
  return messages.map((m) => (m.role === "tool" ? `tool:${m.tool_call_id}` : `${m.role}:${m.content}`));
}

/** Every row's parent is the row before it; the first's is null. */
export function expectChained(messages: StoredMessage[]): void {
  expect(messages.map((m) => m.parent_message_id ?? null)).toEqual([
    null,
    ...messages.slice(0, -1).map((m) => m.id),
  ]);
}

/** The stored rows of a thread straight from its table, every branch (to prove nothing was stored). */
export async function allRowCount(server: TestServer): Promise<number> {
  return server.countRows("messages");
}

/** The final assistant row of the turn whose frames these are (the last `message` frame). */
export function finalOf(frames: ServerFrame[]): StoredMessage {
  const last = frames.filter((f): f is Frame<"message"> => f.type === "message").at(-1);
  if (!last) throw new Error("no message frame");
  return last.message;
}

/** The next `error` frame answering `requestId`. */
export function errorFor(client: TestClient, requestId: string, timeoutMs = 5000): Promise<Frame<"error">> {
  return client.next("error", { where: (f) => f.request_id === requestId, timeoutMs });
}

/** The thread id of frames. */
export function threadOf(frames: ServerFrame[]): string {
  const frame = frames.find((f) => "thread_id" in f && typeof f.thread_id === "string");
  if (!frame || !("thread_id" in frame)) throw new Error("no frame with a thread_id");
  return frame.thread_id as string;
}
