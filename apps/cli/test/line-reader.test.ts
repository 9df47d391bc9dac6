import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineReader } from "../src/chat/line-reader.js";

describe("LineReader.tap", () => {
  it("hands lines nobody asked for to the tap, a pending next() first, and queues them again once untapped", async () => {
    const input = new PassThrough();
    const lines = new LineReader(input);
    const tapped: string[] = [];
    const untap = lines.tap((line) => tapped.push(line));
    input.write("typed ahead\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect(tapped).toEqual(["typed ahead"]);
    // A prompt's next() still gets its answer, not the tap.
    const answer = lines.next();
    input.write("the answer\n");
    expect(await answer).toBe("the answer");
    untap();
    input.write("later\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect(tapped).toEqual(["typed ahead"]);
    expect(await lines.next()).toBe("later");
    lines.close();
  });
});
