import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contractJsonSchema } from "../src/index.js";

describe("contractJsonSchema", () => {
  it("matches the committed docs/protocol.schema.json", () => {
    const committed = JSON.parse(
      readFileSync(new URL("../../../docs/protocol.schema.json", import.meta.url), "utf8"),
    );
    expect(committed).toEqual(contractJsonSchema());
  });

  it("lists every client command and server frame type", () => {
    const text = JSON.stringify(contractJsonSchema());
    for (const name of [
      "chat_message",
      "resume_chat",
      "tool_approval_response",
      "budget_exceeded",
      "chat_resumed",
    ]) {
      expect(text).toContain(`"const":"${name}"`);
    }
  });
});
