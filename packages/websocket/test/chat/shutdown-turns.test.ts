import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openTestStorage } from "../harness.js";
import { startChatServer } from "./chat-harness.js";

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
});
