import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { echoTool, type RecordingTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
let other: ChatTestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  await other?.close();
  server = undefined;
  other = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

const lastToolResult = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "tool" ? last : undefined;
};

/** Each user message makes the model call write_note once, then report what the call returned. */
const writeThenReport = (request: ProviderRequest): ScriptedStep => {
  const result = lastToolResult(request);
  if (result) return { text: `result: ${result.content}${result.isError ? " (error)" : ""}` };
  const turn = request.messages.filter((m) => m.role === "user").length;
  return { toolCalls: [{ id: `w${turn}`, name: "write_note", args: { text: `note ${turn}` } }] };
};

async function startGated(
  auth?: "token",
  dbPath?: string,
): Promise<{ s: ChatTestServer; tool: RecordingTool }> {
  const tool = echoTool("write_note", "workspace_write");
  const s = await startChatServer(writeThenReport, {
    policy: { workspaceWrite: "ask" },
    extraTools: [tool],
    ...(auth && { auth }),
    ...(dbPath && { dbPath }),
  });
  return { s, tool };
}

/** Sends a chat message and reads up to the approval request (and the waiting state after it). */
async function untilApproval(client: TestClient, data: object) {
  client.command("chat_message", data);
  const frames = await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
  const request = frames.find((f): f is Frame<"tool_approval_request"> => f.type === "tool_approval_request");
  if (!request) throw new Error("no tool_approval_request");
  const threadId = (frames.find((f) => "thread_id" in f) as { thread_id: string }).thread_id;
  return { frames, request, threadId };
}

describe("tool approvals", () => {
  it("allow: the gated tool runs once, with the args the model gave", async () => {
    const { s, tool } = await startGated();
    server = s;
    const client = await server.connect();
    const { frames: head, request, threadId } = await untilApproval(client, { content: "write it" });
    expect(request).toMatchObject({
      tool_name: "write_note",
      permission_class: "workspace_write",
      args: { text: "note 1" },
    });
    expect(request.approval_id).toMatch(/\S/);
    expect(tool.calls).toEqual([]);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");

    client.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    const rest = await client.collectUntil(isDone);
    expectWellFormedTurn([...head, ...rest]);
    expectStartsEnded([...head, ...rest]);
    expect(tool.calls).toEqual([{ text: "note 1" }]);
    expect(rest.find((f) => f.type === "tool_call_update")).toMatchObject({
      tool_call_id: "w1",
      status: "end",
      result: "echo:note 1",
      is_error: false,
    });
    expect(finalRow(rest)).toMatchObject({ content: "result: echo:note 1", status: "complete" });
    const rows = await storedMessages(server, threadId);
    expect(rows.find((r) => r.role === "tool")).toMatchObject({ tool_call_id: "w1", content: "echo:note 1" });
  });

  it("deny: the tool does not run and the model reads that the user declined", async () => {
    const { s, tool } = await startGated();
    server = s;
    const client = await server.connect();
    const { request } = await untilApproval(client, { content: "write it" });
    client.command("tool_approval_response", { approval_id: request.approval_id, decision: "deny" });
    const rest = await client.collectUntil(isDone);
    expect(tool.calls).toEqual([]);
    const seen = lastToolResult(server.provider.requests[1] as ProviderRequest);
    expect(seen).toMatchObject({ toolCallId: "w1", isError: true });
    expect(seen?.content).toMatch(/declined/);
    expect(rest.find((f) => f.type === "tool_call_update")).toMatchObject({ status: "end", is_error: true });
    expect(finalRow(rest).status).toBe("complete");
  });

  it("allow_for_thread: runs now, and a later call of the same tool in the thread runs without asking", async () => {
    const { s, tool } = await startGated();
    server = s;
    const client = await server.connect();
    const { request, threadId } = await untilApproval(client, { content: "first" });
    client.command("tool_approval_response", {
      approval_id: request.approval_id,
      decision: "allow_for_thread",
    });
    await client.collectUntil(isDone);
    expect(tool.calls).toEqual([{ text: "note 1" }]);

    client.command("chat_message", { content: "second", thread_id: threadId });
    const second = await client.collectUntil(isDone);
    expect(second.some((f) => f.type === "tool_approval_request")).toBe(false);
    expect(tool.calls).toEqual([{ text: "note 1" }, { text: "note 2" }]);
    expect(finalRow(second)).toMatchObject({ content: "result: echo:note 2", status: "complete" });

    // The grant is for that thread only: a new thread asks again.
    const other = await untilApproval(client, { content: "elsewhere" });
    expect(other.threadId).not.toBe(threadId);
    expect(tool.calls).toHaveLength(2);
  });

  it("allow_for_thread is stored with the thread: another instance and a restarted server do not ask again", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-grants-"));
    const dbPath = join(dir, "grants.db");
    const a = await startGated(undefined, dbPath);
    server = a.s;
    const client = await server.connect();
    const { request, threadId } = await untilApproval(client, { content: "first" });
    client.command("tool_approval_response", {
      approval_id: request.approval_id,
      decision: "allow_for_thread",
    });
    await client.collectUntil(isDone);
    expect(await server.countRows("tool_grants")).toBe(1);

    // A second instance on the same database (as behind REDIS_URL) runs the tool without asking.
    const b = await startGated(undefined, dbPath);
    other = b.s;
    const onB = await other.connect();
    onB.command("chat_message", { content: "second", thread_id: threadId });
    const second = await onB.collectUntil(isDone);
    expect(second.some((f) => f.type === "tool_approval_request")).toBe(false);
    expect(b.tool.calls).toEqual([{ text: "note 2" }]);
    await other.close();
    other = undefined;

    // A restart on the same database file keeps the grant.
    await server.close();
    const c = await startGated(undefined, dbPath);
    server = c.s;
    const afterRestart = await server.connect();
    afterRestart.command("chat_message", { content: "third", thread_id: threadId });
    const third = await afterRestart.collectUntil(isDone);
    expect(third.some((f) => f.type === "tool_approval_request")).toBe(false);
    expect(c.tool.calls).toEqual([{ text: "note 3" }]);
    expect(finalRow(third)).toMatchObject({ content: "result: echo:note 3", status: "complete" });

    // The grant lives as long as its thread.
    expect((await server.fetch(`/api/threads/${threadId}`, { method: "DELETE" })).ok).toBe(true);
    expect(await server.countRows("tool_grants")).toBe(0);
  });

  it("answering the same approval twice: the second gets an error and the tool runs once", async () => {
    const { s, tool } = await startGated();
    server = s;
    const client = await server.connect();
    const { request } = await untilApproval(client, { content: "write it" });
    client.command(
      "tool_approval_response",
      { approval_id: request.approval_id, decision: "allow" },
      "first",
    );
    client.command(
      "tool_approval_response",
      { approval_id: request.approval_id, decision: "allow" },
      "second",
    );
    await client.collectUntil(isDone);
    const errors = client.received.filter((f): f is Frame<"error"> => f.type === "error");
    expect(errors.map((e) => e.request_id)).toEqual(["second"]);
    expect(errors[0]?.code).toBe("not_found");
    expect(tool.calls).toHaveLength(1);
    // Also after the turn ended.
    client.command("tool_approval_response", { approval_id: request.approval_id, decision: "deny" }, "late");
    expect(await client.next("error", { where: (e) => e.request_id === "late" })).toMatchObject({
      code: "not_found",
    });
  });

  it("another user cannot answer: not_found, and the owner's approval still works", async () => {
    const { s, tool } = await startGated("token");
    server = s;
    const alice = await server.connect({ token: await server.createToken("alice") });
    const bob = await server.connect({ token: await server.createToken("bob") });
    const { request, threadId } = await untilApproval(alice, { content: "write it" });
    bob.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" }, "bob");
    expect(await bob.next("error")).toMatchObject({ code: "not_found", request_id: "bob" });
    expect(tool.calls).toEqual([]);
    expect((await server.repos.turns.latest("alice", threadId))?.status).toBe("waiting_user");

    alice.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    const rest = await alice.collectUntil(isDone);
    expect(finalRow(rest).status).toBe("complete");
    expect(tool.calls).toHaveLength(1);
    await bob.ping();
    expect(bob.received.map((f) => f.type)).toEqual(["error", "pong"]);
  });
});
