import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { openTestStorage } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("server shutdown during a turn", () => {
  it("interrupts the running turn and stores its partial answer before the database closes", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-shutdown-"));
    const dbPath = join(dir, "s.db");
    const server = await startChatServer([{ text: "half an answer", hold: "until-aborted" }], { dbPath });
    const client = await server.connect();
    client.command("chat_message", { content: "go" });
    await client.next("chunk", { where: (f) => f.content === "half an answer" });
    const threadId = (await server.repos.threads.list("local"))[0]?.id ?? "";
    await server.close();
    expect((await client.closed).code).toBe(1012);

    const storage = await openTestStorage(dbPath);
    try {
      const reopened = storage.repos;
      expect((await reopened.turns.latest("local", threadId))?.status).toBe("interrupted");
      const rows = await reopened.messages.list("local", threadId);
      expect(rows.at(-1)).toMatchObject({
        role: "assistant",
        content: "half an answer",
        status: "interrupted",
      });
    } finally {
      await storage.close();
    }
  });

  it("stores the subtasks it cut short as interrupted, with the text they streamed and their time so far", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-shutdown-"));
    const dbPath = join(dir, "s.db");
    const server = await startChatServer(
      (request) => {
        const first = request.messages[0];
        const task = first?.role === "user" && typeof first.content === "string" ? first.content : "";
        if (task.startsWith("part ")) return { text: [`${task}: `, "working"], hold: "until-aborted" };
        return {
          text: "Splitting.",
          toolCalls: [
            { id: "s1", name: "run_subtask", args: { title: "A", instructions: "part A" } },
            { id: "s2", name: "run_subtask", args: { title: "B", instructions: "part B" } },
          ],
        };
      },
      { dbPath },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "go" });
    const seen = new Map<string, string>();
    await client.collectUntil((f) => {
      if (f.type === "chunk" && f.parent_id) seen.set(f.parent_id, (seen.get(f.parent_id) ?? "") + f.content);
      return seen.get("s1") === "part A: working" && seen.get("s2") === "part B: working";
    });
    const threadId = (await server.repos.threads.list("local"))[0]?.id ?? "";
    await server.close();

    const storage = await openTestStorage(dbPath);
    try {
      const rows = await storage.repos.messages.list("local", threadId);
      const final = rows.at(-1);
      expect(final).toMatchObject({ role: "assistant", status: "interrupted" });
      const nodes = final?.execution_tree?.nodes.toSorted((a, b) => a.id.localeCompare(b.id));
      expect(nodes).toEqual([
        expect.objectContaining({ id: "s1", status: "interrupted", is_error: true, text: "part A: working" }),
        expect.objectContaining({ id: "s2", status: "interrupted", is_error: true, text: "part B: working" }),
      ]);
      for (const node of nodes ?? []) expect(node.duration_ms).toBeGreaterThan(0);
    } finally {
      await storage.close();
    }
  });
});
