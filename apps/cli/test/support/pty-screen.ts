/**
 * Runs the CLI in a real pseudo-terminal (util-linux `script`) and replays what it drew into a headless
 * xterm of 120×40, so tests assert the screen a person would read, after every cursor move and erase,
 * not the raw bytes a pipe would get.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import xterm from "@xterm/headless";

const root = join(import.meta.dirname, "../../../..");
export const COLUMNS = 120;
export const ROWS = 40;

export type PtyRun = {
  /** Every line of the terminal (scrollback and screen), right-trimmed, without trailing blank lines. */
  screen(): string;
  /** As `screen`, with each line the terminal wrapped at its right edge joined back into one. */
  lines(): string;
  /**
   * Resolves with the screen once `test` holds for it; rejects, showing the screen, if the CLI exits
   * first or it takes longer than `failAfterMs` (a failure bound, not a wait).
   */
  waitFor(test: string | RegExp | ((screen: string) => boolean), failAfterMs?: number): Promise<string>;
  /** Types into the terminal, as a person would (`\r` is Enter, `\x03` is Ctrl-C). */
  type(text: string): void;
  /** The CLI's exit code, once everything it wrote is on the screen. */
  exit: Promise<number | null>;
  /** Ends the CLI if it still runs (test clean-up). */
  kill(): void;
};

/**
 * Starts `agentwire <args>` from source in a 120×40 pseudo-terminal; `prelude`, a shell command, runs
 * first in the same terminal (`seq 1 50` fills the screen, as a person's earlier commands do).
 */
export function runInPty(args: string[], prelude?: string): PtyRun {
  const terminal = new xterm.Terminal({
    cols: COLUMNS,
    rows: ROWS,
    scrollback: 1000,
    allowProposedApi: true,
  });
  const command = [
    `stty cols ${COLUMNS} rows ${ROWS}`,
    ...(prelude ? [prelude] : []),
    `exec ${[process.execPath, "--import", "tsx", "--conditions=@agentwire-chat/source", "apps/cli/src/main.ts", ...args].map(quote).join(" ")}`,
  ].join(" && ");
  // -q quiet, -f flush each write, -e the child's exit code, -c the command; no typescript file.
  const proc = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", SHELL: "/bin/sh", TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiters = new Set<() => void>();
  let exited = false;
  let failedToStart: Error | undefined;
  proc.once("error", (error) => {
    // No silent skip: without util-linux's `script` these tests fail, saying why.
    failedToStart = new Error(`could not run \`script\` (util-linux, Debian's bsdutils): ${error.message}`);
  });
  const screen = () => {
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
    return lines.join("\n").trimEnd();
  };
  const joined = () => {
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) {
      const row = buffer.getLine(i);
      // A row the next one continues is full to the edge: untrimmed, so a space there stays between words.
      const text = row?.translateToString(buffer.getLine(i + 1)?.isWrapped !== true) ?? "";
      if (row?.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return lines.join("\n").trimEnd();
  };
  proc.stdout.on("data", (data: Buffer) => {
    terminal.write(data, () => {
      for (const check of waiters) check();
    });
  });
  const exit = new Promise<number | null>((resolve) => {
    proc.once("close", (code) => {
      // An empty write's callback runs after every earlier write is parsed.
      terminal.write("", () => {
        exited = true;
        for (const check of waiters) check();
        resolve(code);
      });
    });
  });
  return {
    screen,
    lines: joined,
    waitFor(test, failAfterMs = 10_000) {
      const holds =
        typeof test === "string"
          ? (s: string) => s.includes(test)
          : test instanceof RegExp
            ? (s: string) => test.test(s)
            : test;
      return new Promise((resolve, reject) => {
        const fail = (why: string) => {
          waiters.delete(check);
          reject(new Error(`${why} before the screen showed ${String(test)}; screen:\n${screen()}`));
        };
        const timer = setTimeout(() => fail(`${failAfterMs} ms passed`), failAfterMs);
        const check = () => {
          const now = screen();
          if (holds(now)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(now);
          } else if (exited) {
            clearTimeout(timer);
            if (failedToStart) {
              waiters.delete(check);
              reject(failedToStart);
            } else fail("the CLI exited");
          }
        };
        waiters.add(check);
        check();
      });
    },
    type(text) {
      proc.stdin.write(text);
    },
    exit,
    kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    },
  };
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
