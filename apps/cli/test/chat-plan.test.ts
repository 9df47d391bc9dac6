/** `agentwire chat` on a draft plan: the CLI asks for the decision and follows the turn it starts. */

import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { script } from "@agentwire-chat/testkit/plan-script";
import { afterEach, describe, expect, it } from "vitest";
import { runCliProcess } from "./support/cli-process.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ASK = "? [a]pprove the plan, [r]evise it, or Enter to leave it for later: ";

/** The one plan the thread has, as stored. */
async function storedPlan(s: ChatTestServer) {
  const thread = (await s.repos.threads.list("local"))[0];
  return (await s.repos.plans.listForThread("local", thread?.id ?? ""))[0];
}

describe("agentwire chat with a draft plan", () => {
  it("approves it at the prompt: the plan runs in a new turn and the answer follows", async () => {
    server = await startChatServer(script);
    const run = runCliProcess(["chat", "make a report (draft_only)", "--url", server.wsUrl]);
    await run.printed(ASK);
    expect(run.out()).toContain("approve or revise it\n");
    run.proc.stdin.write("a\n");
    expect(await run.exit).toBe(0);
    const out = run.out();
    expect(out).toContain(`${ASK}a\n`);
    expect(out).toMatch(/✓ create_plan .*\(\d+ ms, \d+ nested calls\)\nfinished: /);
    expect((await storedPlan(server))?.status).toBe("complete");
  });

  it("revises it with feedback: the feedback is the next turn's message", async () => {
    server = await startChatServer(script);
    const run = runCliProcess(["chat", "make a report (draft_only)", "--url", server.wsUrl]);
    await run.printed(ASK);
    run.proc.stdin.write("r\n");
    await run.printed("what should change? ");
    run.proc.stdin.write("use three sources\n");
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain("what should change? use three sources\nnoted: use three sources\n");
    expect((await storedPlan(server))?.status).toBe("revised");
  });

  it("leaves it for later on Enter: nothing is decided", async () => {
    server = await startChatServer(script);
    const run = runCliProcess(["chat", "make a report (draft_only)", "--url", server.wsUrl]);
    await run.printed(ASK);
    run.proc.stdin.write("\n");
    expect(await run.exit).toBe(0);
    expect((await storedPlan(server))?.status).toBe("pending_review");
  });
});
