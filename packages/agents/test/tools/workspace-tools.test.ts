import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkspaceTools } from "../../src/tools/builtin/index.js";
import type { VerifiedFsOptions } from "../../src/tools/builtin/workspace/verified-fs.js";
import { errorText, okOutput, runTool, toolNamed } from "./run-tool.js";

let base: string;
let workspaceRoot: string;
let outside: string;
let home: string;

/** Every file below `dir` with its content, to prove nothing outside the root changed. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fsp.readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = entry.isFile()
      ? await fsp.readFile(full, "utf8")
      : entry.isDirectory()
        ? "<dir>"
        : "<other>";
  }
  return out;
}

function tools(hooks?: VerifiedFsOptions, userId = "alice") {
  const all = createWorkspaceTools({ workspaceRoot, userId, ...(hooks && { testHooks: hooks }) });
  return {
    list: toolNamed(all, "list_files"),
    read: toolNamed(all, "read_file"),
    write: toolNamed(all, "write_file"),
  };
}

beforeEach(async () => {
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), "aw-ws-")));
  workspaceRoot = path.join(base, "root");
  outside = path.join(base, "outside");
  home = path.join(workspaceRoot, "alice");
  await fsp.mkdir(outside);
  await fsp.writeFile(path.join(outside, "secret.txt"), "TOP SECRET");
  // Create alice's dir through the tool, as in production.
  okOutput(await runTool(tools().list, {}));
});

afterEach(async () => {
  await fsp.rm(base, { recursive: true, force: true });
});

describe("workspace tools: declarations", () => {
  it("declares classes, parallel safety and the write lock", () => {
    const t = tools();
    expect([t.list.permissionClass, t.read.permissionClass, t.write.permissionClass]).toEqual([
      "safe",
      "safe",
      "workspace_write",
    ]);
    expect(t.write.parallelSafe).toBe(false);
    expect(t.write.requiresExclusiveLock).toBe("workspace_fs");
    expect(t.read.parallelSafe).toBe(true);
  });
});

describe("workspace tools: happy path", () => {
  it("creates the user dir 0700, writes nested files, reads and lists them", async () => {
    const st = await fsp.stat(home);
    expect(st.mode & 0o777).toBe(0o700);
    const t = tools();
    expect(okOutput(await runTool(t.write, { path: "notes/a/b.txt", content: "héllo" }))).toMatchObject({
      path: "notes/a/b.txt",
      bytes: 6,
      created: true,
    });
    expect(okOutput(await runTool(t.read, { path: "./notes//a/b.txt" }))).toMatchObject({ content: "héllo" });
    expect(okOutput(await runTool(t.write, { path: "notes/a/b.txt", content: "v2" }))).toMatchObject({
      created: false,
    });
    expect(await fsp.readFile(path.join(home, "notes/a/b.txt"), "utf8")).toBe("v2");
    const listing = okOutput<{ entries: { name: string; type: string }[] }>(
      await runTool(t.list, { path: "notes/a" }),
    );
    expect(listing.entries).toEqual([{ name: "b.txt", type: "file", size: 2 }]);
  });

  it("follows a symlink that stays inside the workspace", async () => {
    await fsp.writeFile(path.join(home, "real.txt"), "inside");
    await fsp.symlink(path.join(home, "real.txt"), path.join(home, "alias.txt"));
    expect(okOutput(await runTool(tools().read, { path: "alias.txt" }))).toMatchObject({ content: "inside" });
  });

  it("caps a listing at 1,000 entries", async () => {
    await Promise.all(Array.from({ length: 1005 }, (_, i) => fsp.writeFile(path.join(home, `f${i}`), "")));
    const listing = okOutput<{ entries: unknown[]; truncated: boolean }>(await runTool(tools().list, {}));
    expect(listing.entries).toHaveLength(1000);
    expect(listing.truncated).toBe(true);
  });

  it("keeps a hostile user id inside the workspace root", async () => {
    const t = tools(undefined, "../../evil");
    okOutput(await runTool(t.write, { path: "x.txt", content: "x" }));
    expect(await fsp.readdir(base)).toEqual(["outside", "root"]);
    expect((await fsp.readdir(workspaceRoot)).sort()).toEqual([
      "_002e_002e_002f_002e_002e_002fevil",
      "alice",
    ]);
  });
});

describe("workspace tools: attacks", () => {
  it("refuses .., absolute paths, NUL bytes and a 10 MiB write, changing nothing outside", async () => {
    const before = await snapshot(base);
    const t = tools();
    expect(errorText(await runTool(t.read, { path: "../../etc/passwd" }))).toMatch(/'\.\.' is not allowed/);
    expect(errorText(await runTool(t.read, { path: "notes/../../outside/secret.txt" }))).toMatch(/'\.\.'/);
    expect(errorText(await runTool(t.read, { path: "/etc/passwd" }))).toMatch(/absolute paths/);
    expect(errorText(await runTool(t.list, { path: "/" }))).toMatch(/absolute paths/);
    expect(errorText(await runTool(t.write, { path: `${outside}/x.txt`, content: "x" }))).toMatch(/absolute/);
    expect(errorText(await runTool(t.write, { path: "../outside/x.txt", content: "x" }))).toMatch(/'\.\.'/);
    expect(errorText(await runTool(t.read, { path: "secret.txt\u0000.png" }))).toMatch(/NUL byte/);
    expect(errorText(await runTool(t.write, { path: "a\u0000b", content: "x" }))).toMatch(/NUL byte/);
    const big = "x".repeat(10 * 1024 * 1024);
    expect(errorText(await runTool(t.write, { path: "big.txt", content: big }))).toMatch(
      /10485760 bytes; write_file accepts at most 1048576/,
    );
    expect(await snapshot(base)).toEqual(before);
  });

  it("refuses reads through a symlink to / and writes through a symlink to outside", async () => {
    await fsp.symlink("/", path.join(home, "rootlink"));
    await fsp.symlink(outside, path.join(home, "outlink"));
    const before = await snapshot(outside);
    const t = tools();
    expect(errorText(await runTool(t.read, { path: "rootlink/etc/passwd" }))).toMatch(
      /leaves your workspace/,
    );
    expect(errorText(await runTool(t.list, { path: "rootlink" }))).toMatch(/leaves your workspace/);
    expect(errorText(await runTool(t.read, { path: "outlink/secret.txt" }))).toMatch(/leaves your workspace/);
    expect(errorText(await runTool(t.write, { path: "outlink/pwned.txt", content: "x" }))).toMatch(
      /leaves your workspace/,
    );
    expect(errorText(await runTool(t.write, { path: "outlink/new/dir/pwned.txt", content: "x" }))).toMatch(
      /leaves your workspace/,
    );
    expect(await snapshot(outside)).toEqual(before);
  });

  it("refuses a final-component symlink pointing outside, for reads and writes", async () => {
    await fsp.symlink(path.join(outside, "secret.txt"), path.join(home, "s.txt"));
    const t = tools();
    expect(errorText(await runTool(t.read, { path: "s.txt" }))).toMatch(/leaves your workspace/);
    expect(errorText(await runTool(t.write, { path: "s.txt", content: "x" }))).toMatch(/symbolic link/);
    expect(await fsp.readFile(path.join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET");
  });

  it("refuses the prefix trick: <root>-evil and <user>-evil siblings", async () => {
    const evilRoot = `${workspaceRoot}-evil`;
    const evilUser = `${home}-evil`;
    await fsp.mkdir(evilRoot);
    await fsp.mkdir(evilUser);
    await fsp.writeFile(path.join(evilRoot, "f.txt"), "evil root");
    await fsp.writeFile(path.join(evilUser, "f.txt"), "evil user");
    await fsp.symlink(path.join(evilRoot, "f.txt"), path.join(home, "a"));
    await fsp.symlink(evilUser, path.join(home, "b"));
    const t = tools();
    expect(errorText(await runTool(t.read, { path: "a" }))).toMatch(/leaves your workspace/);
    expect(errorText(await runTool(t.read, { path: "b/f.txt" }))).toMatch(/leaves your workspace/);
    expect(errorText(await runTool(t.write, { path: "b/g.txt", content: "x" }))).toMatch(
      /leaves your workspace/,
    );
    expect(await fsp.readdir(evilUser)).toEqual(["f.txt"]);
  });

  it("refuses a file over the read cap", async () => {
    await fsp.writeFile(path.join(home, "big.bin"), Buffer.alloc(1024 * 1024 + 1, 65));
    expect(errorText(await runTool(tools().read, { path: "big.bin" }))).toMatch(
      /1048577 bytes; read_file reads at most 1048576/,
    );
  });
});

describe("workspace tools: a parent directory swapped for a symlink mid-call", () => {
  /** A hook that, once, replaces `<home>/sub` by a symlink to `outside` when `trigger` is about to be opened. */
  function swapOnce(trigger: string): VerifiedFsOptions & { fired: () => boolean } {
    let fired = false;
    return {
      fired: () => fired,
      async beforeOpen(p) {
        if (fired || p !== path.join(home, trigger)) return;
        fired = true;
        await fsp.rename(path.join(home, "sub"), path.join(home, "sub.bak"));
        await fsp.symlink(outside, path.join(home, "sub"));
      },
    };
  }

  beforeEach(async () => {
    await fsp.mkdir(path.join(home, "sub"));
    await fsp.writeFile(path.join(home, "sub", "secret.txt"), "mine");
  });

  for (const procFd of [true, false]) {
    it(`read_file detects the swap after open (procFd ${procFd})`, async () => {
      const hooks = swapOnce("sub/secret.txt");
      const out = await runTool(tools({ ...hooks, procFd }).read, { path: "sub/secret.txt" });
      expect(hooks.fired()).toBe(true);
      expect(errorText(out)).toMatch(/changed while it was being opened/);
      expect(JSON.stringify(out)).not.toContain("TOP SECRET");
    });

    it(`list_files detects the swap after open (procFd ${procFd})`, async () => {
      await fsp.mkdir(path.join(home, "sub", "inner"));
      await fsp.mkdir(path.join(outside, "inner"));
      const hooks = swapOnce("sub/inner");
      const out = await runTool(tools({ ...hooks, procFd }).list, { path: "sub/inner" });
      expect(hooks.fired()).toBe(true);
      expect(errorText(out)).toMatch(/changed while it was being opened/);
    });
  }

  it("write_file: a swap before opening the parent is refused, nothing outside changes", async () => {
    const before = await snapshot(outside);
    const hooks = swapOnce("sub");
    const out = await runTool(tools(hooks).write, { path: "sub/new.txt", content: "x" });
    expect(hooks.fired()).toBe(true);
    expect(errorText(out)).toMatch(/leaves your workspace/);
    expect(await snapshot(outside)).toEqual(before);
  });

  it("write_file: a swap after the parent is verified cannot redirect the write (fd-anchored)", async () => {
    const before = await snapshot(outside);
    const hooks = swapOnce("sub/new.txt");
    const out = await runTool(tools({ ...hooks, procFd: true }).write, { path: "sub/new.txt", content: "x" });
    expect(hooks.fired()).toBe(true);
    // The write goes through the fd of the directory that was checked (now sub.bak, still inside).
    okOutput(out);
    expect(await fsp.readFile(path.join(home, "sub.bak", "new.txt"), "utf8")).toBe("x");
    expect(await snapshot(outside)).toEqual(before);
  });
});
