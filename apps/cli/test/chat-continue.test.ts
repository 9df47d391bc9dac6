/**
 * `agentwire chat` going on after a turn its budget stopped: `/continue` in an interactive session,
 * and the one-shot `chat --continue --thread ID`, in a pseudo-terminal against a real server.
 */

import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { type PtyRun, runInPty } from "./support/pty-screen.js";

let server: ChatTestServer | undefined;
const runs: PtyRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) run.kill();
  await server?.close();
  server = undefined;
});

function chat(...args: string[]): PtyRun {
  const run = runInPty(["chat", ...args, "--url", server?.wsUrl ?? ""]);
  runs.push(run);
  return run;
}

/** Two model calls where the budget allows one: the turn stops after the first, with the note written. */
async function budgetServer(): Promise<ChatTestServer> {
  return startChatServer(
    [
      { text: "Looking it up.", toolCalls: [{ id: "w1", name: "write_note", args: { text: "a" } }] },
      { text: "Done after the note." },
    ],
    { limits: { MAX_TOTAL_LLM_CALLS: 1 }, extraTools: [echoTool("write_note", "workspace_write")] },
  );
}

describe("agentwire chat continues a turn stopped at its limit", () => {
  it("interactive: the end says /continue, and /continue finishes the same turn", async () => {
    server = await budgetServer();
    const run = chat();
    await run.waitFor(/^>$/m);
    run.type("work\r");
    await run.waitFor(/^· stopped at its limit: \/continue goes on with a fresh budget\n>$/m);
    run.type("/continue\r");
    await run.waitFor(/^Done after the note\.\n.*\n>$/m);
    run.type("\x04");
    expect(await run.exit).toBe(0);
    expect(run.screen()).toMatch(/^! budget exceeded: /m);
    const thread = (await server.repos.threads.list("local"))[0];
    const rows = await server.repos.messages.list("local", thread?.id ?? "");
    // One user message: the continuation is the same turn, now complete.
    expect(rows.filter((r) => r.role === "user")).toHaveLength(1);
    expect(rows.at(-1)).toMatchObject({ status: "complete", content: "Done after the note." });
  });

  it(
    "one-shot: the end names chat --continue --thread ID, which finishes the turn and exits 0",
    { timeout: 60_000 },
    async () => {
      server = await budgetServer();
      const first = chat("work");
      expect(await first.exit).toBe(0);
      const hint = /^· stopped at its limit; to go on: agentwire chat --continue --thread (\S+)$/m;
      const threadId = hint.exec(first.screen())?.[1];
      expect(threadId).toBeDefined();
      const second = chat("--continue", "--thread", threadId ?? "");
      expect(await second.exit).toBe(0);
      // The thread's story once: the first part's text is not repeated by its end row.
      expect(second.screen().match(/^Looking it up\.$/gm)).toHaveLength(1);
      expect(second.screen()).toMatch(/^Done after the note\.$/m);
      expect(second.screen()).not.toContain("stopped at its limit");
    },
  );

  it("--continue on a turn that completed says why, and exits 1", { timeout: 60_000 }, async () => {
    server = await startChatServer([{ text: "All done." }]);
    const first = chat("hi");
    expect(await first.exit).toBe(0);
    const threadId = (await server.repos.threads.list("local"))[0]?.id ?? "";
    const second = chat("--continue", "--thread", threadId);
    expect(await second.exit).toBe(1);
    expect(second.screen()).toMatch(/^! not_found: /m);
  });
});
