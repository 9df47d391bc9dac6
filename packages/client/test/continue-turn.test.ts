import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "../src/index.js";
import { readAll, seqs } from "./support/frames.js";

let server: ChatTestServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

function open(): Client {
  if (!server) throw new Error("no server");
  const client = testClient(server.wsUrl);
  clients.push(client);
  return client;
}

/** Two model calls; the budget allows one, so the turn ends budget_exceeded after the first. */
const script = [
  { text: "Looking it up", toolCalls: [{ id: "w1", name: "write_note", args: { text: "a" } }] },
  { text: "Done after the note" },
];

describe("client.continueTurn", () => {
  it("continues a turn a budget ended: a Turn of the continuation's frames, seq on from the first part", async () => {
    const note = echoTool("write_note", "workspace_write");
    server = await startChatServer(script, { limits: { MAX_TOTAL_LLM_CALLS: 1 }, extraTools: [note] });
    const client = open();
    const first = client.send({ content: "work" });
    const firstFrames = await readAll(first);
    expect((await first.done).status).toBe("budget_exceeded");
    const threadId = await first.threadId;

    // Another client, which never saw the first part, continues it.
    const other = open();
    const continued = other.continueTurn(threadId);
    const frames = await readAll(continued);
    expect(frames[0]).toMatchObject({ type: "agent_state", state: "resumed" });
    expect(seqs(frames)[0]).toBe((seqs(firstFrames).at(-1) ?? 0) + 1);
    expect(await continued.done).toMatchObject({ status: "complete", usage: { llm_calls: 2 } });
    expect(await continued.text()).toBe("Done after the note");
    // The live tree is the continuation's: reopened, then ended with its answer and no limit notice.
    expect(continued.tree).toMatchObject({
      running: false,
      root: [{ kind: "text", text: "Done after the note" }],
    });
    expect(continued.tree?.budget).toBeUndefined();
    expect(note.calls).toHaveLength(1);
  });

  it("a turn that did not end at a limit cannot be continued: the Turn ends with not_found", async () => {
    server = await startChatServer([{ text: "all done" }]);
    const client = open();
    const first = client.send({ content: "hi" });
    expect((await first.done).status).toBe("complete");
    const again = client.continueTurn(await first.threadId);
    expect(await again.done).toMatchObject({ status: "error", error: { code: "not_found" } });
    expect(again.received).toEqual([]);
  });
});
