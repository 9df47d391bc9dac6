/**
 * The live region against a real terminal emulator (headless xterm, 120×40) whose screen is already
 * full: random redraws of random heights, with lines written for good between them, must leave every
 * line written for good in place and the region's last drawing under them. Seeded; the seed is printed.
 */
import xterm from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { LiveRegion } from "../src/chat/live-region.js";

const COLUMNS = 120;
const ROWS = 40;

/** A terminal and a stream onto it, as `process.stdout` is on a terminal of that size. */
function terminal() {
  const term = new xterm.Terminal({ cols: COLUMNS, rows: ROWS, scrollback: 5000, allowProposedApi: true });
  // A tty turns `\n` into CR LF (onlcr); the emulator gets what the tty sends.
  const stream = {
    columns: COLUMNS,
    rows: ROWS,
    write: (text: string) => term.write(text.replace(/\n/g, "\r\n")),
  } as unknown as NodeJS.WriteStream;
  const lines = () =>
    new Promise<string[]>((resolve) =>
      term.write("", () => {
        const buffer = term.buffer.active;
        const out: string[] = [];
        for (let i = 0; i < buffer.length; i++) {
          const row = buffer.getLine(i);
          const text = row?.translateToString(buffer.getLine(i + 1)?.isWrapped !== true) ?? "";
          if (row?.isWrapped && out.length > 0) out[out.length - 1] += text;
          else out.push(text);
        }
        while (out.at(-1) === "") out.pop();
        resolve(out);
      }),
    );
  return { stream, lines };
}

/** A small seeded generator (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("LiveRegion", () => {
  it("keeps every line written for good on a full screen through random redraws", async () => {
    const seed = Number(process.env.SEED ?? Date.now() % 1_000_000);
    console.log(`live-region seed ${seed} (SEED=${seed} replays it)`);
    const next = random(seed);
    const pick = (n: number) => Math.floor(next() * n);
    const { stream, lines } = terminal();
    const written = Array.from({ length: 50 }, (_, i) => String(i + 1));
    stream.write(`${written.join("\n")}\n`);
    const region = new LiveRegion(stream);
    for (let step = 0; step < 400; step++) {
      // Region lines of every kind: short, wrapping over several rows, wide characters, empty.
      const live = Array.from({ length: pick(5) }, (_, k) => {
        const kind = pick(4);
        if (kind === 0) return `status ${step}.${k}`;
        if (kind === 1) return `partial ${step}.${k} ${"x".repeat(pick(COLUMNS * 3))}`;
        if (kind === 2) return `wide ${step}.${k} ${"字".repeat(pick(COLUMNS))}`;
        return "";
      });
      // Now and then a region taller than the screen: only its last rows fit.
      if (pick(20) === 0)
        live.push(...Array.from({ length: ROWS + pick(10) }, (_, k) => `tall ${step}.${k}`));
      // Lines for good of every width: the terminal wraps the long ones itself.
      const above = Array.from({ length: pick(3) }, (_, k) =>
        pick(2) === 0
          ? `for good ${step}.${k} ${"y".repeat(pick(COLUMNS * 3))}`
          : // An even prefix: a wide character never meets the edge with one column left (the terminal
            // would leave that column blank, and the line read back would hold a space there).
            `wide${String(step * 10 + k).padStart(5, "0")} ${"字".repeat(pick(COLUMNS))}`,
      );
      written.push(...above);
      region.draw(live, above.map((l) => `${l}\n`).join(""));
    }
    // The last drawing in short lines (a region's row is no wrapped line to the emulator: one row, one line).
    const final = ["final partial", "", "⠋ writing · 1.0 s"];
    region.draw(final);
    const screen = await lines();
    expect(screen.slice(0, written.length), `seed ${seed}`).toEqual(written);
    expect(screen.slice(written.length), `seed ${seed}`).toEqual(final);
    region.done("the end\n");
    expect((await lines()).slice(written.length), `seed ${seed}`).toEqual(["the end"]);
  });
});
