// The first `pnpm start`'s build: only what the server runs (its workspace packages and the web page it
// serves; not the CLI, which `pnpm agentwire` builds for itself), two at a time in dependency order,
// saying which package is building, how far along it is, and how long each and the whole took.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** What `pnpm start` builds before the server listens: the server's packages and the page it serves. */
export const START_TARGETS = ["@agentwire-chat/server", "@agentwire-chat/web"];

/**
 * The workspace packages `targets` need, each with its directory and the workspace packages it depends
 * on, dependencies first. `dirs` are the workspace's package directories relative to `root`.
 */
export function buildPlan(root, dirs, targets = START_TARGETS) {
  const byName = new Map();
  for (const dir of dirs) {
    const file = join(root, dir, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8"));
    const deps = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })
      .filter(([, version]) => String(version).startsWith("workspace:"))
      .map(([name]) => name);
    byName.set(pkg.name, {
      name: pkg.name,
      dir: join(root, dir),
      deps,
      hasBuild: Boolean(pkg.scripts?.build),
    });
  }
  const plan = [];
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    const entry = byName.get(name);
    if (!entry) throw new Error(`${name} is not a workspace package`);
    for (const dep of entry.deps) visit(dep);
    if (entry.hasBuild)
      plan.push({ name, dir: entry.dir, deps: entry.deps.filter((d) => byName.get(d)?.hasBuild) });
  };
  for (const target of targets) visit(target);
  return plan;
}

/**
 * The entries of `plan` not built yet (no `dist`, or `isBuilt` says so), each depending only on others
 * of them: what `pnpm agentwire` builds after `pnpm start`, so a build the running server uses is never
 * rebuilt under it.
 */
export function unbuilt(plan, isBuilt = (entry) => existsSync(join(entry.dir, "dist"))) {
  const missing = plan.filter((entry) => !isBuilt(entry));
  const names = new Set(missing.map((entry) => entry.name));
  return missing.map((entry) => ({ ...entry, deps: entry.deps.filter((d) => names.has(d)) }));
}

/** The workspace's package directories (pnpm-workspace.yaml's `packages/*` and `apps/*`). */
export function workspaceDirs(root, listDir) {
  return ["packages", "apps"].flatMap((group) => listDir(join(root, group)).map((name) => join(group, name)));
}

/**
 * Builds `plan` (from buildPlan), at most `concurrency` packages at once, each once its dependencies
 * are built. `run(entry)` builds one package and resolves `{ok, output}`; `log` gets each progress
 * line. Resolves `{ok: true, ms}`, or `{ok: false, failed, output}` at the first failure (the builds
 * already running are let finish, none is started after it).
 */
export async function buildInOrder(plan, { run, log, concurrency = 2, now = () => performance.now() }) {
  const started = now();
  const total = plan.length;
  const done = new Set();
  const pending = [...plan];
  let position = 0;
  let failure;
  const running = new Set();
  const next = () => pending.findIndex((entry) => entry.deps.every((d) => done.has(d)));
  const startOne = (entry) => {
    const n = ++position;
    const at = now();
    log(`agentwire: [${n}/${total}] building ${entry.name}`);
    const job = run(entry).then((result) => {
      running.delete(job);
      if (!result.ok) {
        failure ??= { ok: false, failed: entry.name, output: result.output };
        return;
      }
      done.add(entry.name);
      log(`agentwire: [${n}/${total}] built ${entry.name} in ${seconds(now() - at)}`);
    });
    running.add(job);
  };
  while (!failure && (pending.length > 0 || running.size > 0)) {
    let i = next();
    while (!failure && i !== -1 && running.size < concurrency) {
      startOne(pending.splice(i, 1)[0]);
      i = next();
    }
    if (running.size === 0) {
      if (pending.length > 0 && !failure)
        throw new Error(`cannot order the build: ${pending.map((e) => e.name)}`);
      break;
    }
    await Promise.race(running);
  }
  await Promise.all(running);
  return failure ?? { ok: true, ms: now() - started };
}

/** Runs a package's own `build` script with the pnpm that runs `pnpm start`; output kept for a failure. */
export function runPackageBuild(entry) {
  const execpath = process.env.npm_execpath;
  const [cmd, ...pre] = execpath && /pnpm\.c?js$/.test(execpath) ? [process.execPath, execpath] : ["pnpm"];
  return runCommand(cmd, [...pre, "run", "build"], entry.dir);
}

/** Runs a command in `cwd`, collecting its stdout and stderr; resolves `{ok, output}`. */
export function runCommand(cmd, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      shell: process.platform === "win32",
    });
    const chunks = [];
    child.stdout.on("data", (c) => chunks.push(c));
    child.stderr.on("data", (c) => chunks.push(c));
    child.once("error", (error) => resolve({ ok: false, output: String(error.message) }));
    child.once("close", (code) => resolve({ ok: code === 0, output: Buffer.concat(chunks).toString() }));
  });
}

/** Milliseconds as "4.2 s". */
export function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}
