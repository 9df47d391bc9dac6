import { spawn } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "../../../..");

/** `agentwire ...args` from source as a child process with piped stdio (no terminal): its output and exit code. */
export function runCliProcess(args: string[], env: Record<string, string> = {}) {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@agentwire-chat/source", "apps/cli/src/main.ts", ...args],
    { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => {
    stdout += d;
  });
  proc.stderr.on("data", (d) => {
    stderr += d;
  });
  const exit = new Promise<number | null>((resolve) => proc.once("exit", resolve));
  /** Resolves once stdout holds `text` (the CLI got that far); rejects if the CLI exits first. */
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (stdout.includes(text)) {
          proc.stdout.off("data", check);
          resolve();
        }
      };
      proc.stdout.on("data", check);
      void exit.then(() =>
        stdout.includes(text)
          ? resolve()
          : reject(new Error(`exited before printing ${text}:\n${stdout}\n${stderr}`)),
      );
      check();
    });
  return { proc, exit, printed, out: () => stdout, err: () => stderr };
}
