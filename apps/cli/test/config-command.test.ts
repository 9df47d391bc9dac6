import { renderConfigText } from "@agentwire-chat/server/config-reference";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/run-cli.js";
import { captureIo } from "./support/capture-io.js";

describe("agentwire config", () => {
  it("prints the server's configuration reference", async () => {
    const io = captureIo();
    expect(await runCli(["config"], io)).toBe(0);
    expect(io.out).toBe(renderConfigText());
    expect(io.err).toBe("");
  });

  it("takes no arguments", async () => {
    const io = captureIo();
    expect(await runCli(["config", "extra"], io)).toBe(2);
    expect(io.err).toContain("usage: agentwire config");
  });

  it("is listed in the CLI's usage", async () => {
    const io = captureIo();
    expect(await runCli(["--help"], io)).toBe(0);
    expect(io.out).toMatch(/^ {2}config {2,}/m);
  });
});
