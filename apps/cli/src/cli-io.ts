/** Where a command writes and what environment it reads; tests pass their own. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
}

/** The process's own streams and environment. */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
};

/** A command's outcome: the process exit code (130, as a shell says for SIGINT: a turn stopped with Ctrl-C). */
export type ExitCode = 0 | 1 | 2 | 130;
