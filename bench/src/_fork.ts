// Forks a bench child process (tsx for bench files, the built packages, --expose-gc) with an IPC channel: the child
// gets its options as a JSON argv[2], says `{ready: value}` once, then answers `{id, op, ...}`
// requests with `{id, ...}`. A child should exit on `disconnect` (its parent died).
import { type ChildProcess, fork } from "node:child_process";

export type Child<Op extends string> = {
  proc: ChildProcess;
  /** Rejects with the reason of an answer that will never come: the child exited. */
  ask<T>(op: Op, extra?: object): Promise<T>;
  /** Rejects when the child exits (a crashed server): race a long wait against it. */
  exited: Promise<never>;
};

// As bench/run.mjs runs: the packages as built (their dist), tsx only for the bench's own files.
const EXEC_ARGV = ["--expose-gc", "--import", "tsx"];

/** `--cpu-prof` flags when BENCH_SERVER_CPU_PROF=<dir> asks for a profile of the server process. */
export const serverProfileArgv = (): string[] =>
  process.env.BENCH_SERVER_CPU_PROF
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_SERVER_CPU_PROF}`]
    : [];

/** Forks `script` (relative to bench/src); resolves with the child and what it sent as `ready`. */
export async function forkChild<Op extends string, Ready = unknown>(
  script: string,
  arg: object,
  extraArgv: string[] = [],
): Promise<[Child<Op>, Ready]> {
  const proc = fork(new URL(script, import.meta.url), [JSON.stringify(arg)], {
    execArgv: [...EXEC_ARGV, ...extraArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pending = new Map<number, { resolve(reply: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  let exit: Error | undefined;
  const exited = new Promise<never>((_, reject) => {
    proc.once("exit", (code, signal) => {
      exit = new Error(`${script} exited with ${signal ?? code}`);
      for (const waiting of pending.values()) waiting.reject(exit);
      pending.clear();
      reject(exit);
    });
  });
  exited.catch(() => {}); // a child told to stop exits too; only a waiter cares
  const ready = await Promise.race([
    exited,
    new Promise<Ready>((resolve) => {
      proc.on("message", (m: { id?: number; ready?: Ready }) => {
        if (m.ready !== undefined) resolve(m.ready);
        else if (m.id !== undefined) {
          pending.get(m.id)?.resolve(m);
          pending.delete(m.id);
        }
      });
    }),
  ]);
  const ask = <T>(op: Op, extra: object = {}) =>
    new Promise<T>((resolve, reject) => {
      if (exit) return reject(exit);
      const id = nextId++;
      pending.set(id, { resolve: (reply) => resolve(reply as T), reject });
      proc.send({ ...extra, id, op });
    });
  return [{ proc, ask, exited }, ready];
}
