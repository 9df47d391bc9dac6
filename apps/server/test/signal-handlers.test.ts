import { createLogger } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";
import { installSignalHandlers, REPEATED_SIGNAL_WINDOW_MS } from "../src/install-signal-handlers.js";

const signals = ["SIGINT", "SIGTERM"] as const;
const before = new Map(signals.map((s) => [s, process.listeners(s)]));
afterEach(() => {
  // Only the listeners this test added: the worker's own stay.
  for (const s of signals) {
    for (const listener of process.listeners(s))
      if (!before.get(s)?.includes(listener)) process.off(s, listener);
  }
});

/** Installs the handlers with a shutdown the test finishes, a recorded exit and a clock it sets. */
function install() {
  let finish = () => {};
  const shutdown = () =>
    new Promise<void>((resolve) => {
      finish = resolve;
    });
  const exits: number[] = [];
  let clock = 1_000;
  const exited = new Promise<number>((resolve) => {
    installSignalHandlers(
      shutdown,
      createLogger({ level: "silent" }),
      ((code: number) => {
        exits.push(code);
        resolve(code);
      }) as typeof process.exit,
      () => clock,
    );
  });
  return {
    finish: () => finish(),
    exits,
    exited,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe("installSignalHandlers", () => {
  it("takes the same signal again at once as the same request (pnpm forwarding the terminal's Ctrl-C)", async () => {
    const run = install();
    process.emit("SIGINT", "SIGINT");
    run.advance(5);
    process.emit("SIGINT", "SIGINT");
    run.finish();
    expect(await run.exited).toBe(0);
    expect(run.exits).toEqual([0]);
  });

  it("exits 1 at once on a second Ctrl-C after the window", async () => {
    const run = install();
    process.emit("SIGINT", "SIGINT");
    run.advance(REPEATED_SIGNAL_WINDOW_MS);
    process.emit("SIGINT", "SIGINT");
    expect(await run.exited).toBe(1);
  });

  it("exits 1 at once on a different signal during shutdown", async () => {
    const run = install();
    process.emit("SIGTERM", "SIGTERM");
    process.emit("SIGINT", "SIGINT");
    expect(await run.exited).toBe(1);
  });
});
