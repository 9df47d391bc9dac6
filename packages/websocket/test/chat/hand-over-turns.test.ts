import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { readTurnCheckpoint, type TurnRow } from "@agentwire-chat/storage";
import { isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { openTestStorage } from "@agentwire-chat/testkit/harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import type { TurnCoordination } from "../../src/index.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A cluster's coordination as far as the handover goes: records what it was asked, and the row then. */
function recordingCoordination(read: (turnId: string) => Promise<TurnRow | undefined>) {
  const handedOver: { threadId: string; turnId: string; row: TurnRow | undefined }[] = [];
  const released: string[] = [];
  const coordination: TurnCoordination = {
    claim: async () => true,
    release: async (_threadId, turnId) => {
      released.push(turnId);
    },
    remoteOwner: async () => undefined,
    stopRemote: async () => {},
    handOver: async (threadId, turnId) => {
      handedOver.push({ threadId, turnId, row: await read(turnId) });
    },
  };
  return { coordination, handedOver, released };
}

describe("shutdown hands running turns over when another instance can continue them", () => {
  it("stops the turn in its second model call, leaves it running with the checkpoint after its tool durable, and only then gives its lease up", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-handover-"));
    const dbPath = join(dir, "s.db");
    const server = await startChatServer(
      [
        { text: "Looking.", toolCalls: [{ id: "e1", name: "echo", args: { text: "one" } }] },
        { text: ["Half ", "an answer"], hold: "until-aborted" },
      ],
      { dbPath, extraTools: [echoTool()] },
    );
    const spy = recordingCoordination((turnId) => server.repos.turns.get("local", turnId));
    server.chat.coordination = spy.coordination;
    server.chat.handOverOnShutdown = true;
    const client = await server.connect();
    const seen: ServerFrame[] = [];
    client.ws.on("message", (data) => seen.push(JSON.parse(String(data)) as ServerFrame));
    client.command("chat_message", { content: "go" });
    await client.next("chunk", { where: (f) => f.content === "an answer" });
    const threadId = (await server.repos.threads.list("local"))[0]?.id ?? "";
    const turnId = (await server.repos.turns.latest("local", threadId))?.id ?? "";
    await server.close();
    expect((await client.closed).code).toBe(1012);

    // Handed over once, never released as an ended turn; the row was running with its checkpoint then.
    expect(spy.handedOver.map((h) => [h.threadId, h.turnId])).toEqual([[threadId, turnId]]);
    expect(spy.released).toEqual([]);
    const atHandOver = spy.handedOver[0]?.row;
    expect(atHandOver?.status).toBe("running");
    const saved = readTurnCheckpoint(atHandOver?.checkpoint);
    expect(saved?.state.root.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "e1" });

    const storage = await openTestStorage(dbPath);
    try {
      // Nothing ended it: no final message, no interrupted row, no `done`; the next owner continues it.
      expect(await storage.repos.turns.latest("local", threadId)).toMatchObject({
        id: turnId,
        status: "running",
      });
      const rows = await storage.repos.messages.list("local", threadId);
      expect(rows.map((m) => [m.role, m.status])).toEqual([
        ["user", "complete"],
        ["assistant", "complete"],
        ["tool", "complete"],
      ]);
      expect(seen.some(isDone)).toBe(false);
    } finally {
      await storage.close();
    }
  });

  it("without handOverOnShutdown (one instance, or TURN_RECOVERY=interrupt) the running turn is interrupted as before", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-handover-"));
    const dbPath = join(dir, "s.db");
    const server = await startChatServer([{ text: "half an answer", hold: "until-aborted" }], { dbPath });
    const spy = recordingCoordination((turnId) => server.repos.turns.get("local", turnId));
    server.chat.coordination = spy.coordination;
    const client = await server.connect();
    client.command("chat_message", { content: "go" });
    await client.next("chunk", { where: (f) => f.content === "half an answer" });
    const threadId = (await server.repos.threads.list("local"))[0]?.id ?? "";
    await server.close();
    expect(spy.handedOver).toEqual([]);
    expect(spy.released).toHaveLength(1);
    const storage = await openTestStorage(dbPath);
    try {
      expect((await storage.repos.turns.latest("local", threadId))?.status).toBe("interrupted");
    } finally {
      await storage.close();
    }
  });
});
