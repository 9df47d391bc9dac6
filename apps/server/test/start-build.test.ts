import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script beside `pnpm start`, without type declarations.
import * as startBuild from "../../../scripts/start-build.mjs";

type PlanEntry = { name: string; dir: string; deps: string[] };
type BuildResult = { ok: true; ms: number } | { ok: false; failed: string; output: string };
const { buildInOrder, buildPlan, runCommand, unbuilt, workspaceDirs } = startBuild as {
  buildPlan(root: string, dirs: string[], targets?: string[]): PlanEntry[];
  unbuilt(plan: PlanEntry[], isBuilt?: (entry: PlanEntry) => boolean): PlanEntry[];
  workspaceDirs(root: string, listDir: (dir: string) => string[]): string[];
  buildInOrder(
    plan: PlanEntry[],
    options: {
      run: (entry: PlanEntry) => Promise<{ ok: boolean; output: string }>;
      log: (line: string) => void;
    },
  ): Promise<BuildResult>;
  runCommand(cmd: string, args: string[], cwd: string): Promise<{ ok: boolean; output: string }>;
};

const root = join(import.meta.dirname, "../../..");
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("the first pnpm start's build", () => {
  it("plans only what the server needs (its packages, the web page and the client SDK it is built on), dependencies first, not the CLI", () => {
    const plan = buildPlan(
      root,
      workspaceDirs(root, (d) => readdirSync(d)),
    );
    const names = plan.map((e) => e.name);
    expect(new Set(names)).toEqual(
      new Set([
        "@agentwire-chat/protocol",
        "@agentwire-chat/client",
        "@agentwire-chat/agents",
        "@agentwire-chat/storage",
        "@agentwire-chat/cluster",
        "@agentwire-chat/websocket",
        "@agentwire-chat/server",
        "@agentwire-chat/web",
      ]),
    );
    expect(names).not.toContain("@agentwire-chat/cli");
    for (const [i, entry] of plan.entries()) {
      for (const dep of entry.deps) expect(names.indexOf(dep)).toBeLessThan(i);
    }
  });

  it("builds each package once its dependencies are built, names it with a count, and says how long each and all took", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-start-build-"));
    const order: string[] = [];
    const packages = { a: [], b: ["a"], c: ["a"], d: ["b", "c"] } as Record<string, string[]>;
    const plan: PlanEntry[] = Object.entries(packages).map(([name, deps]) => {
      mkdirSync(join(dir as string, name));
      return { name, dir: join(dir as string, name), deps };
    });
    const lines: string[] = [];
    // Each "build" is a real child process that writes its marker only if its dependencies' exist.
    const result = await buildInOrder(plan, {
      log: (line) => lines.push(line),
      run: async (entry) => {
        const script = `const fs=require("fs");for(const d of ${JSON.stringify(entry.deps)})if(!fs.existsSync("../"+d+"/built"))process.exit(3);fs.writeFileSync("built","")`;
        const built = await runCommand(process.execPath, ["-e", script], entry.dir);
        if (built.ok) order.push(entry.name);
        return built;
      },
    });
    expect(result).toEqual({ ok: true, ms: expect.any(Number) });
    expect(order[0]).toBe("a");
    expect(order[3]).toBe("d");
    expect(lines.filter((l) => /^agentwire: \[\d\/4\] building [abcd]$/.test(l))).toHaveLength(4);
    expect(lines.filter((l) => /^agentwire: \[\d\/4\] built [abcd] in \d+\.\d s$/.test(l))).toHaveLength(4);
    expect(lines[0]).toBe("agentwire: [1/4] building a");
  });

  it("stops at a failed build with its output, starting nothing after it", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-start-build-"));
    const plan: PlanEntry[] = [
      { name: "a", dir, deps: [] },
      { name: "b", dir, deps: ["a"] },
    ];
    const lines: string[] = [];
    const result = await buildInOrder(plan, {
      log: (line) => lines.push(line),
      run: (entry) =>
        runCommand(
          process.execPath,
          ["-e", `console.error("tsc: error in ${entry.name}");process.exit(2)`],
          dir as string,
        ),
    });
    expect(result).toEqual({ ok: false, failed: "a", output: "tsc: error in a\n" });
    expect(lines).toEqual(["agentwire: [1/2] building a"]);
  });
});

describe("pnpm agentwire's build of the CLI (apps/cli/scripts/run-built.mjs)", () => {
  const dirs = () => workspaceDirs(root, (d) => readdirSync(d));

  it("after pnpm start's build is the CLI alone: nothing the running server uses is rebuilt", () => {
    const started = new Set(buildPlan(root, dirs()).map((e) => e.name));
    const cli = buildPlan(root, dirs(), ["@agentwire-chat/cli"]);
    // The CLI needs packages pnpm start built (the check would be empty without them).
    expect(cli.filter((e) => started.has(e.name)).length).toBeGreaterThan(3);
    const plan = unbuilt(cli, (entry) => started.has(entry.name));
    expect(plan).toEqual([expect.objectContaining({ name: "@agentwire-chat/cli", deps: [] })]);
  });

  it("builds only packages without a dist, each waiting only on others it builds", () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-start-build-"));
    const at = (name: string) => join(dir as string, name);
    for (const name of ["a", "b", "c"]) mkdirSync(at(name));
    mkdirSync(join(at("a"), "dist"));
    const plan: PlanEntry[] = [
      { name: "a", dir: at("a"), deps: [] },
      { name: "b", dir: at("b"), deps: ["a"] },
      { name: "c", dir: at("c"), deps: ["a", "b"] },
    ];
    expect(unbuilt(plan)).toEqual([
      { name: "b", dir: at("b"), deps: [] },
      { name: "c", dir: at("c"), deps: ["b"] },
    ]);
    expect(unbuilt(plan, () => true)).toEqual([]);
  });
});
