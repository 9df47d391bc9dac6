import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";

/** A command running in a pseudo-terminal (util-linux `script`), as a person's shell would run it. */
export interface Terminal {
  /** Everything the terminal showed so far (its echo of typed keys included). */
  screen(): string;
  /** Resolves once the screen matches; rejects if the command exits first. */
  waitFor(pattern: RegExp): Promise<void>;
  /** Types keys, e.g. "\x03" for Ctrl-C: the terminal turns that into SIGINT for its foreground group. */
  type(keys: string): void;
  /** The command's exit code (script -e passes it on; 128+n for a signal). */
  exited: Promise<number>;
  /** Kills `script` and what runs under it, if still running. */
  kill(): void;
}

/** Runs `command` (a shell line) in a new pseudo-terminal with exactly `env`. */
export function openTerminal(
  command: string,
  options: { env: Record<string, string>; cwd: string },
): Terminal {
  const child: ChildProcess = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let text = "";
  const watchers = new Set<() => void>();
  const onData = (chunk: string) => {
    text += chunk;
    for (const check of watchers) check();
  };
  // Decoded as a stream: a character split across two reads stays whole.
  child.stdout?.setEncoding("utf8").on("data", onData);
  child.stderr?.setEncoding("utf8").on("data", onData);
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))),
  );
  return {
    screen: () => text,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(text)) return;
          watchers.delete(check);
          resolve();
        };
        watchers.add(check);
        check();
        void exited.then((code) => {
          if (!watchers.has(check)) return;
          watchers.delete(check);
          // Quoted: the screen's own stack traces would otherwise be parsed as this error's.
          const quoted = text.replace(/^/gm, "│ ");
          reject(new Error(`exited with ${code} before the screen matched ${pattern}:\n${quoted}`));
        });
      }),
    type: (keys) => void child.stdin?.write(keys),
    exited,
    kill: () => {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    },
  };
}
