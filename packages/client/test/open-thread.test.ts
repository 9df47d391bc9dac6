import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "../src/index.js";

let server: ChatTestServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

const lastUserText = (r: ProviderRequest) => {
  const user = r.messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : "";
};

/**
 * docs/protocol.md, "Opening an existing thread": rows carry no seq, so a page opened mid-turn fetches
 * the rows, resumes from 0 and joins the two on the row ids the replayed `message` frames carry.
 */
describe("opening an existing thread", () => {
  it("the replay's message frames are the fetched rows of the last turn, by id; rows before them are older turns", async () => {
    const held = gate();
    server = await startChatServer((r): ScriptedStep => {
      if (lastUserText(r) === "first") return { text: "one" };
      return { text: ["two ", "halves"], hold: held.promise };
    });
    const writer = testClient(server.wsUrl);
    clients.push(writer);
    const opening = writer.send({ content: "first" });
    const threadId = await opening.threadId;
    await opening.done;
    await writer.send({ content: "first", thread_id: threadId }).done; // two finished turns before the live one
    const live = writer.send({ content: "second", thread_id: threadId });
    await until(
      () => live.tree?.root.some((c) => c.kind === "text" && c.text.includes("two")) === true,
      "the live turn's first text",
    );

    // A page opened now: the rows first, then the last turn from seq 0.
    const reader = testClient(server.wsUrl);
    clients.push(reader);
    const rows = await reader.threads.messages(threadId);
    const resumed = reader.resume(threadId);
    const frames: ServerFrame[] = [];
    const reading = (async () => {
      for await (const f of resumed.frames) frames.push(f);
    })();
    await until(
      () => frames.some((f) => f.type === "chunk" && f.content.includes("two")),
      "the replayed text",
    );
    held.open();
    await reading;
    expect((await resumed.done).status).toBe("complete");

    const replayed = frames.flatMap((f) => (f.type === "message" ? [f.message] : []));
    const firstReplayed = replayed[0] as StoredMessage;
    expect(firstReplayed.role).toBe("user");
    expect(firstReplayed.content).toBe("second");
    // The fetched rows hold the live turn's user row under the same id, and the older turns before it.
    const cut = rows.findIndex((m) => m.id === firstReplayed.id);
    expect(cut).toBeGreaterThan(0);
    const older = rows.slice(0, cut);
    expect(older.map((m) => m.content)).toEqual(["first", "one", "first", "one"]);
    // Older rows plus the replay are the thread as it is stored now: nothing twice, nothing missing.
    const after = await reader.threads.messages(threadId);
    expect([...older, ...replayed].map((m) => m.id)).toEqual(after.map((m) => m.id));
    expect(after.at(-1)?.content).toBe("two halves");
  });
});
