import type { CliIo } from "../../src/cli-io.js";

/** A CliIo that keeps what a command writes (`out`, `err`), for tests that call runCli in-process. */
export function captureIo(
  env: Record<string, string | undefined> = {},
): CliIo & { out: string; err: string } {
  const io: CliIo & { out: string; err: string } = {
    out: "",
    err: "",
    stdout: (t) => {
      io.out += t;
    },
    stderr: (t) => {
      io.err += t;
    },
    env,
  };
  return io;
}
