/** `agentwire chat --thread ID`: where the thread stands, and a turn that waits on it taken up. */
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "../../../packages/client/src/index.js";
import { runCliProcess } from "./support/cli-process.js";

let server: ChatTestServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  client?.close();
  await server?.close();
  server = client = undefined;
});

/** "pick one" asks a question and answers with the choice; anything else is echoed. */
function asker(request: ProviderRequest): ScriptedStep {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: `You chose ${last.content}.` };
  const said = last?.role === "user" ? String(last.content) : "";
  if (said === "pick one") return { toolCalls: [{ name: "ask_user", args: { question: "Which colour?" } }] };
  return { text: `echo: ${said}` };
}

describe("agentwire chat --thread", () => {
  it("shows the thread's last messages, then asks the pending question of a waiting turn instead of failing busy", async () => {
    server = await startChatServer(asker);
    const sdk = testClient(server.wsUrl);
    client = sdk;
    const first = sdk.send({ content: "hello" });
    expect(await first.text()).toBe("echo: hello");
    const threadId = await first.threadId;
    // Another client asks, and goes away while the question waits.
    const asking = sdk.send({ content: "pick one", thread_id: threadId });
    await until(() => asking.tree?.questions.length || undefined, "the question");
    sdk.close();
    const url = `${server.httpUrl}/api/threads`;
    await until(async () => {
      const { threads } = (await (await fetch(url)).json()) as { threads: { state?: string }[] };
      return threads[0]?.state === "waiting_on_user" || undefined;
    }, "the waiting thread");

    const run = runCliProcess(["chat", "--thread", threadId, "--url", server.wsUrl]);
    await run.printed("? Which colour?\n> ");
    run.proc.stdin.write("blue\n");
    await run.printed("You chose blue.");
    run.proc.stdin.write("and now?\n");
    await run.printed("echo: and now?");
    run.proc.stdin.end();
    expect(await run.exit).toBe(0);
    const out = run.out().replace(/\d+ ms/g, "N ms");
    expect(
      out.startsWith(
        [`· thread ${threadId}`, "> hello", "echo: hello", "> pick one", "? Which colour?", "> blue"].join(
          "\n",
        ),
      ),
    ).toBe(true);
    expect(out.match(/Which colour\?/g)).toHaveLength(1);
    expect(out).not.toContain("busy");
  });

  it("says so when the thread is not there", async () => {
    server = await startChatServer(asker);
    const run = runCliProcess(["chat", "hi", "--thread", "no-such-thread", "--url", server.wsUrl]);
    expect(await run.exit).toBe(1);
    expect(run.out()).toMatch(/^! not_found: /m);
    expect(server.provider.calls).toBe(0);
  });
});
