import { afterEach, describe, expect, it } from "vitest";
import { Interrupts, SAME_PRESS_MS } from "../src/chat/interrupts.js";

let interrupts: Interrupts | undefined;
afterEach(() => {
  interrupts?.close();
  interrupts = undefined;
});

describe("Interrupts", () => {
  it("counts a SIGINT repeated within the window as the same press (pnpm forwards the one it got)", () => {
    let now = 0;
    const presses: string[] = [];
    interrupts = new Interrupts(
      () => presses.push("idle"),
      () => now,
    );
    const end = interrupts.during(() => presses.push("turn"));
    process.emit("SIGINT", "SIGINT");
    now += 5;
    process.emit("SIGINT", "SIGINT");
    expect(presses).toEqual(["turn"]);
    now += SAME_PRESS_MS;
    process.emit("SIGINT", "SIGINT");
    expect(presses).toEqual(["turn", "turn"]);
    end();
    now += SAME_PRESS_MS;
    process.emit("SIGINT", "SIGINT");
    expect(presses).toEqual(["turn", "turn", "idle"]);
  });

  it("leaves SIGINT to Node once closed", () => {
    const before = process.listenerCount("SIGINT");
    interrupts = new Interrupts(() => {});
    expect(process.listenerCount("SIGINT")).toBe(before + 1);
    interrupts.close();
    expect(process.listenerCount("SIGINT")).toBe(before);
  });
});
