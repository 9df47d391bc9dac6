import type { TurnUsage } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import {
  type Frame,
  restart,
  resumeToEnd,
  rootText,
  runUntilKilled,
  storedRows,
  useCrashHarness,
} from "./crash-continue-harness.js";

useCrashHarness();

// Spawns a real server process that loads the sources through tsx: seconds on a busy machine.
describe("usage of a turn continued after kill -9", { timeout: 90_000 }, () => {
  it("the model call cut by the kill has no ledger row; made again, it counts once: ledger, usage frame and row agree", async () => {
    // Calls: "Looking." (100/10), the cut call (would report 999/99 at its end, never reached), made
    // again as "Checking." (200/20), then "All done." (300/30).
    const run = await runUntilKilled("second-call", (seen) => rootText(seen).endsWith("Half an answer"));
    const lastSeq = (run.seen.at(-1) as Frame).seq;
    const { server, client, repos } = await restart(run.dir, "second-call");
    const { frames } = await resumeToEnd(client, run.threadId, lastSeq);

    const ledger = await repos.llmCalls.forTurn(
      "local",
      (await repos.turns.latest("local", run.threadId))?.id ?? "",
    );
    expect(ledger.map((c) => [c.inputTokens, c.outputTokens, c.error])).toEqual([
      [100, 10, null],
      [200, 20, null],
      [300, 30, null],
    ]);
    const expected = { llm_calls: 3, input_tokens: 600, output_tokens: 60 };
    const usage = frames.find((f) => f.type === "usage") as (Frame & TurnUsage) | undefined;
    expect(usage).toMatchObject(expected);
    const final = (await storedRows(server, run.threadId)).at(-1);
    expect(final).toMatchObject({ content: "All done.", status: "complete", usage: expected });
    expect((await repos.turns.latest("local", run.threadId))?.usage).toMatchObject(expected);
  });
});
