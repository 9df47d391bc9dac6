import { readFileSync } from "node:fs";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { openStorage } from "@agentwire-chat/storage";
import { expect } from "vitest";
import { messagesOf } from "./cluster-instances.js";

/**
 * The fixture's "write then answer" turn once another instance continued it after A cut its second
 * model call (kill -9 or a handover): the continuation's frames (`continued`, after the stored ones)
 * close the cut call's text as interrupted, say `resumed`, run no tool again (the note as changed
 * since) and end complete; the stored rows and the turn row say the same: continued once after a
 * crash (`recoveries` 1), not counted after a handover (0).
 */
export async function expectWriteThenAnswerContinued(
  continued: ServerFrame[],
  at: { url: string; databaseUrl: string; threadId: string; note: string; recoveries: number },
): Promise<void> {
  expect(continued[0]).toMatchObject({
    type: "message",
    message: { role: "assistant", content: "Half an answer", status: "interrupted" },
  });
  expect(continued[1]).toMatchObject({ type: "agent_state", state: "resumed" });
  expect(continued.filter((f) => f.type === "message").at(-1)).toMatchObject({
    message: { role: "assistant", content: "All done.", status: "complete" },
  });
  expect(continued.some((f) => f.type === "tool_call_update")).toBe(false);
  expect(readFileSync(at.note, "utf8")).toBe("changed after the tool ran");

  const rows = await messagesOf(at.url, at.threadId);
  expect(rows.map((m) => [m.role, m.role === "tool" ? m.tool_call_id : m.content, m.status])).toEqual([
    ["user", "write then answer", "complete"],
    ["assistant", "Writing.", "complete"],
    ["tool", "w1", "complete"],
    ["assistant", "Half an answer", "interrupted"],
    ["assistant", "All done.", "complete"],
  ]);
  const storage = await openStorage({ databaseUrl: at.databaseUrl, databasePath: "unused" });
  try {
    expect(await storage.repos.turns.latest("local", at.threadId)).toMatchObject({
      status: "complete",
      recoveries: at.recoveries,
    });
  } finally {
    await storage.close();
  }
}
