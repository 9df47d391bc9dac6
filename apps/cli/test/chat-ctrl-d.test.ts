/**
 * Ctrl-D at the prompt of a question ends the session, not the turn (README): the turn waits on the
 * server, and a later `agentwire chat --thread ID` answers it. In a real pseudo-terminal.
 */
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
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

function asker(request: ProviderRequest): ScriptedStep {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: `You chose ${last.content}.` };
  return { toolCalls: [{ name: "ask_user", args: { question: "Which colour?" } }] };
}

/** The thread's state as `GET /api/threads` gives it. */
async function threadState(): Promise<{ id: string; state?: string } | undefined> {
  const res = await fetch(`${server?.httpUrl}/api/threads`);
  return ((await res.json()) as { threads: { id: string; state?: string }[] }).threads[0];
}

describe("Ctrl-D at a question's prompt", { timeout: 60_000 }, () => {
  it("ends the session and leaves the turn waiting; --thread later answers it", async () => {
    server = await startChatServer(asker);
    const first = chat("pick for me");
    await first.waitFor(/^>$/m);
    first.type("\x04");
    expect(await first.exit).toBe(1);
    const thread = await threadState();
    expect(first.screen()).toContain(
      `· the turn waits for your answer; to give it: agentwire chat --thread ${thread?.id}`,
    );
    expect(first.screen()).not.toMatch(/■ stopped/);
    // The turn was neither stopped nor cut: it still waits for its answer on the server.
    expect(thread?.state).toBe("waiting_on_user");
    const rows = await server.repos.messages.list("local", thread?.id ?? "");
    expect(rows.some((m) => m.status === "stopped")).toBe(false);

    const second = chat("--thread", thread?.id ?? "");
    await second.waitFor(/^> *$/m);
    second.type("green\r");
    await second.waitFor(/^You chose green\.$/m);
    second.type("\x04");
    expect(await second.exit).toBe(0);
    expect((await threadState())?.state).not.toBe("waiting_on_user");
    expect(server.provider.requests.at(-1)?.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "green",
    });
  });
});
