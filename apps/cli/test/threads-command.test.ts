/** `agentwire threads`: the user's threads with their live state, and new activity marked. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
let dir: string | undefined;
afterEach(async () => {
  client?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = client = dir = undefined;
});

/** "pick one" asks a question; anything else is echoed. */
function asker(request: ProviderRequest): ScriptedStep {
  const last = request.messages.at(-1);
  const said = last?.role === "user" ? String(last.content) : "";
  if (said === "pick one") return { toolCalls: [{ name: "ask_user", args: { question: "Which colour?" } }] };
  return { text: `echo: ${said}` };
}

describe("agentwire threads", () => {
  it("lists threads with their live state, and marks those with activity since the user last looked", async () => {
    server = await startChatServer(asker);
    const url = server.wsUrl;
    const state = mkdtempSync(join(tmpdir(), "agentwire-cli-state-"));
    dir = state;
    const cli = async (...args: string[]) => {
      const run = runCliProcess(args, { AGENTWIRE_STATE_DIR: state, AGENTWIRE_URL: url });
      run.proc.stdin.end();
      const code = await run.exit;
      expect(run.err()).toBe("");
      expect(code).toBe(0);
      return run.out();
    };
    const sdk = testClient(url);
    client = sdk;
    const a = sdk.send({ content: "first thread" });
    await a.done;
    const threadA = await a.threadId;

    // The first listing has nothing to compare with: nothing is marked.
    expect(await cli("threads")).toBe(`  idle  ${threadA}  first thread\n`);

    // Opened in chat, then changed elsewhere; meanwhile another thread waits on a question.
    await cli("chat", "--thread", threadA);
    const b = sdk.send({ content: "pick one" });
    await until(() => b.tree?.questions.length || undefined, "the question");
    const threadB = await b.threadId;
    await sdk.send({ content: "more", thread_id: threadA }).done;

    const listed = await cli("threads");
    expect(listed).toBe(
      // Most recently updated first.
      [
        `• idle     ${threadA}  first thread`,
        `• waiting  ${threadB}  pick one`,
        "    ? Which colour?",
        "",
      ].join("\n"),
    );

    // Looked at in chat: no longer marked; the waiting thread stays marked until opened.
    await cli("chat", "--thread", threadA);
    expect(await cli("threads")).toContain(`  idle     ${threadA}  first thread\n`);
    expect(await cli("threads")).toContain(`• waiting  ${threadB}  pick one\n`);
  });
});
