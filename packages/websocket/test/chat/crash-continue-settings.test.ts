import { describe, expect, it } from "vitest";
import { parseModelSettingsTable } from "../../src/index.js";
import { restart, resumeToEnd, rootText, runUntilKilled, useCrashHarness } from "./crash-continue-harness.js";

useCrashHarness();

describe("model settings after a crash", { timeout: 90_000 }, () => {
  it("a turn recovered from its checkpoint runs with its model's settings, resolved again at the restart", async () => {
    const run = await runUntilKilled("second-call", (seen) => rootText(seen).endsWith("Half an answer"));
    const table = parseModelSettingsTable({
      models: {
        "scripted:scripted-1": { temperature: 0.4, max_output_tokens: 640, reasoning_effort: "medium" },
      },
    });
    if (!table.ok) throw new Error(table.message);
    const { client, provider } = await restart(run.dir, "second-call", (chat) => {
      chat.modelSettings = table.value;
    });
    const { frames } = await resumeToEnd(client, run.threadId, 0);
    expect(frames.some((f) => f.type === "message" && f.message.content === "All done.")).toBe(true);
    // The continuation's calls: the one the kill cut, made again, and the one after its tool.
    expect(provider.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of provider.requests) {
      expect(request).toMatchObject({
        maxTokens: 640,
        settings: { temperature: 0.4, reasoning_effort: "medium" },
      });
    }
  });
});
