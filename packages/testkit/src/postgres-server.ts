import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./free-port.js";

const run = promisify(execFile);
const root = "/usr/lib/postgresql";

/** A throwaway Postgres cluster owned by the test process. */
export interface TestPostgres {
  /** The `postgres` database as the `postgres` superuser (trust auth, no password). */
  readonly url: string;
  /** Creates an empty database and returns its url; a fresh unique name unless one is given. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the cluster at once (no checkpoint: the data is thrown away) and removes its directory. */
  stop(): Promise<void>;
}

/** Debian's initdb/pg_ctl directory, newest major version first; undefined when none is installed. */
export function findPostgresBin(): string | undefined {
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, "bin");
    if (existsSync(join(bin, "initdb")) && existsSync(join(bin, "pg_ctl"))) return bin;
  }
  return undefined;
}

/** What is missing to run Postgres tests, or undefined when the binaries are there. */
export function postgresMissing(): string | undefined {
  if (findPostgresBin()) return undefined;
  return `Postgres is not installed: no initdb and pg_ctl under ${root}/<version>/bin (apt-get install postgresql; .ci/run does)`;
}

let databases = 0;

/** Runs initdb in a temp dir and starts Postgres on a free 127.0.0.1 port, fsync off; throws when not installed. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(`startPostgres: ${postgresMissing()}`);
  const dir = mkdtempSync(join(tmpdir(), "agentwire-pg-"));
  const as = runAs(dir);
  const data = join(dir, "data");
  const log = join(dir, "postgres.log");
  const pgCtl = (...args: string[]) => as(join(bin, "pg_ctl"), args);
  try {
    await as(join(bin, "initdb"), [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "--locale=C",
      "-E",
      "UTF8",
      "-N",
    ]);
    const port = await startOnFreePort(pgCtl, data, dir, log);
    const stopNow = () => {
      try {
        execFileSync(...as.argv(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "immediate", "-w"]), {
          cwd: dir,
          stdio: "ignore",
        });
      } catch {
        // Already down: nothing is left to stop.
      }
      rmSync(dir, { recursive: true, force: true });
    };
    // A test file that throws before its afterAll would otherwise leave a postmaster running detached.
    process.once("exit", stopNow);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    let stopped = false;
    return {
      url,
      createDatabase: async (name) => {
        databases += 1;
        const database = name ?? `agentwire_${process.pid}_${databases}`;
        if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`createDatabase: bad name ${database}`);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${database}"`);
        } finally {
          await client.end();
        }
        return `postgres://postgres@127.0.0.1:${port}/${database}`;
      },
      stop: async () => {
        if (stopped) return;
        stopped = true;
        process.removeListener("exit", stopNow);
        await pgCtl("stop", "-D", data, "-m", "immediate", "-w").catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    const tail = existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : "(no server log)";
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`startPostgres failed: ${(error as Error).message}\n${tail}`);
  }
}

type Runner = ((file: string, args: string[]) => Promise<unknown>) & {
  argv(file: string, args: string[]): [string, string[]];
};

/** Postgres refuses to run as root, so under root the binaries run as Debian's `postgres` user. */
function runAs(dir: string): Runner {
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const argv = (file: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  // cwd is the temp dir: the postgres user may not be able to enter the test's working directory.
  const runner = (file: string, args: string[]) => run(...argv(file, args), { cwd: dir });
  return Object.assign(runner, { argv });
}

async function startOnFreePort(
  pgCtl: (...args: string[]) => Promise<unknown>,
  data: string,
  socketDir: string,
  log: string,
): Promise<number> {
  // Another process can take the port between freePort() and the bind; a fresh port is tried then.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const options = `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    try {
      await pgCtl("start", "-D", data, "-l", log, "-w", "-t", "60", "-o", options);
      return port;
    } catch (error) {
      const text = existsSync(log) ? readFileSync(log, "utf8") : "";
      if (attempt >= 3 || !text.includes("could not bind")) throw error;
    }
  }
}
