import { describe, expect, it } from "vitest";
import { requestSettings } from "../../src/loop/request-settings.js";

describe("requestSettings", () => {
  it("sends max_output_tokens as maxTokens, replacing the caller's, and the rest as settings", () => {
    expect(
      requestSettings({
        maxTokens: 4_000,
        settings: {
          max_output_tokens: 256,
          temperature: 0,
          reasoning_effort: "minimal",
          parallel_tool_calls: false,
        },
      }),
    ).toEqual({
      maxTokens: 256,
      settings: { temperature: 0, reasoning_effort: "minimal", parallel_tool_calls: false },
    });
  });

  it("keeps the caller's maxTokens without an operator cap, and sends no empty settings", () => {
    expect(requestSettings({ maxTokens: 4_000, settings: { max_output_tokens: undefined } })).toEqual({
      maxTokens: 4_000,
    });
    expect(requestSettings({ settings: { temperature: 1.5 } })).toEqual({ settings: { temperature: 1.5 } });
    expect(requestSettings({})).toEqual({});
  });
});
