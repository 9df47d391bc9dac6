// The machine block of every bench JSON. Its own module, so a bench that starts no server (loop)
// does not load the server's modules to write it.
import { execSync } from "node:child_process";
import { arch, cpus, loadavg, platform, totalmem } from "node:os";

/** What a bench records when it starts, for `machineInfo` at its end. */
export type BenchStart = { loadavg1m: number; git: GitState };

/** Call first thing in a bench: the load average and the tree the run starts from. */
export function benchStart(): BenchStart {
  return { loadavg1m: loadavg()[0] ?? 0, git: gitState() };
}

/**
 * The machine block every bench JSON carries: the machine, the 1-minute load average at start and
 * end (these are shared machines), and the git HEAD with the files modified in the server's and the
 * bench's sources. Others work in the same tree while benches run, so a HEAD or a set of modified
 * files that changed during the run is reported too (`git_at_end`).
 */
export function machineInfo(start: BenchStart) {
  const end = gitState();
  const changed = end.head !== start.git.head || end.modified.join("\n") !== start.git.modified.join("\n");
  return {
    node: process.version,
    platform: platform(),
    arch: arch(),
    cpu: cpus()[0]?.model,
    cpus: cpus().length,
    memory_gb: Math.round(totalmem() / 2 ** 30),
    git_head: start.git.head,
    server_sources_modified: server(start.git).length > 0,
    bench_sources_modified: bench(start.git).length > 0,
    modified_server_files: server(start.git).slice(0, 50),
    modified_bench_files: bench(start.git).slice(0, 50),
    ...(changed && {
      git_at_end: {
        git_head: end.head,
        modified_server_files: server(end).slice(0, 50),
        modified_bench_files: bench(end).slice(0, 50),
      },
    }),
    loadavg_1m_at_start: round2(start.loadavg1m),
    loadavg_1m_at_end: round2(loadavg()[0] ?? 0),
  };
}

/** The sources a bench result depends on: the server's packages, the server app, the bench. */
const SOURCE_PATHS = [
  "packages/agents/src",
  "packages/storage/src",
  "packages/cluster/src",
  "packages/protocol/src",
  "packages/websocket/src",
  "apps/server/src",
  "bench/src",
];
const REPO_ROOT = new URL("../..", import.meta.url).pathname;

type GitState = { head: string; modified: string[] };

function gitState(): GitState {
  const status = git(`status --porcelain -- ${SOURCE_PATHS.join(" ")}`);
  return {
    head: git("rev-parse --short HEAD"),
    modified:
      status === "unknown"
        ? ["unknown"]
        : status
            .split("\n")
            .filter(Boolean)
            .map((l) => l.slice(3)),
  };
}

function git(args: string): string {
  try {
    return execSync(`git -C ${REPO_ROOT} ${args}`, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trimEnd();
  } catch {
    return "unknown";
  }
}

const bench = (git: GitState) => git.modified.filter((f) => f.startsWith("bench/"));
const server = (git: GitState) => git.modified.filter((f) => !f.startsWith("bench/"));
const round2 = (n: number) => Math.round(n * 100) / 100;
