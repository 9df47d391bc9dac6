import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkspaceTools, type WorkspaceLimits } from "../../src/tools/builtin/index.js";
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
    del: toolNamed(all, "delete_file"),
    search: toolNamed(all, "search_files"),
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
    expect([t.del.permissionClass, t.del.parallelSafe, t.del.requiresExclusiveLock]).toEqual([
      "workspace_write",
      false,
      "workspace_fs",
    ]);
    expect([t.search.permissionClass, t.search.parallelSafe]).toEqual(["safe", true]);
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

  it("refuses a regular file with a second hard link (one planted inside the root naming a file outside)", async () => {
    await fsp.link(path.join(outside, "secret.txt"), path.join(home, "planted.txt"));
    const t = tools();
    expect(errorText(await runTool(t.read, { path: "planted.txt" }))).toMatch(/more than one hard link/);
    const found = okOutput<{ matches: unknown[]; skipped: number }>(
      await runTool(t.search, { query: "SECRET" }),
    );
    expect(found).toMatchObject({ matches: [], skipped: 1 });
    // A file with a single name still reads.
    await fsp.writeFile(path.join(home, "plain.txt"), "mine");
    expect(okOutput(await runTool(t.read, { path: "plain.txt" }))).toMatchObject({ content: "mine" });
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

describe("delete_file", () => {
  it("deletes a file, and refuses the workspace itself, a directory and a missing file", async () => {
    await fsp.mkdir(path.join(home, "notes"));
    await fsp.writeFile(path.join(home, "notes", "a.txt"), "abc");
    const t = tools();
    expect(okOutput(await runTool(t.del, { path: "notes/a.txt" }))).toEqual({
      path: "notes/a.txt",
      deleted: true,
      bytes: 3,
    });
    expect(await fsp.readdir(path.join(home, "notes"))).toEqual([]);
    expect(errorText(await runTool(t.del, { path: "." }))).toMatch(/not the workspace itself/);
    expect(errorText(await runTool(t.del, { path: "notes" }))).toMatch(/is a directory/);
    expect(errorText(await runTool(t.del, { path: "notes/a.txt" }))).toBe(
      "no such file or directory: notes/a.txt",
    );
    // A missing parent is not created by a delete.
    expect(errorText(await runTool(t.del, { path: "nope/x.txt" }))).toMatch(/no such file/);
    expect(await fsp.readdir(home)).toEqual(["notes"]);
  });

  it("refuses .., absolute paths, NUL and symlinks leading out of the root, deleting nothing", async () => {
    await fsp.symlink(outside, path.join(home, "outlink"));
    await fsp.symlink(path.join(outside, "secret.txt"), path.join(home, "s.txt"));
    await fsp.symlink("/", path.join(home, "rootlink"));
    const before = await snapshot(base);
    const t = tools();
    expect(errorText(await runTool(t.del, { path: "../outside/secret.txt" }))).toMatch(
      /'\.\.' is not allowed/,
    );
    expect(errorText(await runTool(t.del, { path: `${outside}/secret.txt` }))).toMatch(/absolute paths/);
    expect(errorText(await runTool(t.del, { path: "secret.txt\u0000" }))).toMatch(/NUL byte/);
    expect(errorText(await runTool(t.del, { path: "outlink/secret.txt" }))).toMatch(/leaves your workspace/);
    expect(errorText(await runTool(t.del, { path: "rootlink/tmp/x" }))).toMatch(/leaves your workspace/);
    expect(errorText(await runTool(t.del, { path: "s.txt" }))).toMatch(/symbolic link; refusing/);
    expect(await snapshot(base)).toEqual(before);
    expect(await fsp.readFile(path.join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET");
  });

  it("a parent swapped for a symlink out of the root mid-call deletes nothing outside", async () => {
    await fsp.mkdir(path.join(home, "sub"));
    await fsp.writeFile(path.join(home, "sub", "secret.txt"), "mine");
    let fired = false;
    const hooks: VerifiedFsOptions = {
      async beforeOpen(p) {
        if (fired || p !== path.join(home, "sub")) return;
        fired = true;
        await fsp.rename(path.join(home, "sub"), path.join(home, "sub.bak"));
        await fsp.symlink(outside, path.join(home, "sub"));
      },
    };
    const out = await runTool(tools(hooks).del, { path: "sub/secret.txt" });
    expect(fired).toBe(true);
    expect(errorText(out)).toMatch(/leaves your workspace/);
    expect(await fsp.readFile(path.join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET");
    expect(await fsp.readFile(path.join(home, "sub.bak", "secret.txt"), "utf8")).toBe("mine");
  });
});

describe("search_files", () => {
  beforeEach(async () => {
    await fsp.mkdir(path.join(home, "notes", "deep"), { recursive: true });
    await fsp.writeFile(path.join(home, "todo.md"), "Buy milk\nwalk the dog\nmilk again\n");
    await fsp.writeFile(path.join(home, "notes", "a.txt"), "no match here\nMILK is loud\n");
    await fsp.writeFile(path.join(home, "notes", "deep", "b.txt"), "milk deep down\n");
    await fsp.writeFile(path.join(home, "bin.dat"), Buffer.from([109, 105, 108, 107, 0, 1]));
  });

  it("finds case-insensitive matches with path and line, in name order, skipping binary files", async () => {
    const out = okOutput(await runTool(tools().search, { query: "milk" }));
    expect(out).toEqual({
      query: "milk",
      matches: [
        { path: "notes/a.txt", line: 2, text: "MILK is loud" },
        { path: "notes/deep/b.txt", line: 1, text: "milk deep down" },
        { path: "todo.md", line: 1, text: "Buy milk" },
        { path: "todo.md", line: 3, text: "milk again" },
      ],
      files_searched: 4,
      bytes_read: 81, // 33 + 27 + 15 + the 6-byte binary file
      skipped: 0,
      truncated: false,
    });
  });

  it("filters by glob: a bare name pattern in any directory, a pattern with / on the whole path", async () => {
    const paths = async (glob: string) =>
      okOutput<{ matches: { path: string }[] }>(
        await runTool(tools().search, { query: "milk", glob }),
      ).matches.map((m) => m.path);
    expect(await paths("*.txt")).toEqual(["notes/a.txt", "notes/deep/b.txt"]);
    expect(await paths("notes/*.txt")).toEqual(["notes/a.txt"]);
    expect(await paths("notes/**/*.txt")).toEqual(["notes/a.txt", "notes/deep/b.txt"]);
    expect(await paths("**/b.txt")).toEqual(["notes/deep/b.txt"]);
    expect(await paths("t?do.*")).toEqual(["todo.md", "todo.md"]);
    expect(await paths("*.rs")).toEqual([]);
  });

  it("a pathological glob answers at once (no backtracking)", async () => {
    await fsp.writeFile(path.join(home, `${"a".repeat(200)}.txt`), "milk");
    const started = performance.now();
    const out = okOutput<{ matches: unknown[] }>(
      await runTool(tools().search, { query: "milk", glob: `${"*a".repeat(60)}*b` }),
    );
    expect(out.matches).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("bounds matches, files opened and bytes read, and says it stopped", async () => {
    const many = "milk\n".repeat(30);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => fsp.writeFile(path.join(home, `m${i}.txt`), many)),
    );
    const capped = (limits: Partial<WorkspaceLimits>) =>
      toolNamed(createWorkspaceTools({ workspaceRoot, userId: "alice", limits }), "search_files");
    const byMatches = okOutput<{ matches: unknown[]; truncated: boolean }>(
      await runTool(capped({ maxSearchMatches: 5 }), { query: "milk" }),
    );
    expect(byMatches.matches).toHaveLength(5);
    expect(byMatches.truncated).toBe(true);
    const byFiles = okOutput<{ files_searched: number; truncated: boolean }>(
      await runTool(capped({ maxSearchFiles: 3 }), { query: "milk" }),
    );
    expect(byFiles).toMatchObject({ files_searched: 3, truncated: true });
    const byBytes = okOutput<{ bytes_read: number; truncated: boolean }>(
      await runTool(capped({ maxSearchBytes: 400 }), { query: "milk", glob: "m*.txt" }),
    );
    expect(byBytes).toMatchObject({ bytes_read: 300, truncated: true });
  });

  it("does not follow symlinks out of the root, nor search files outside it", async () => {
    await fsp.symlink(outside, path.join(home, "outlink"));
    await fsp.symlink(path.join(outside, "secret.txt"), path.join(home, "s.txt"));
    await fsp.symlink("/", path.join(home, "rootlink"));
    const out = await runTool(tools().search, { query: "SECRET" });
    expect(okOutput(out)).toMatchObject({ matches: [], truncated: false });
    expect(JSON.stringify(out)).not.toContain("TOP SECRET");
  });

  it("a directory swapped for a symlink out of the root mid-walk is skipped, nothing outside read", async () => {
    await fsp.writeFile(path.join(outside, "inner.txt"), "milk from outside");
    let fired = false;
    const hooks: VerifiedFsOptions = {
      async beforeOpen(p) {
        if (fired || p !== path.join(home, "notes")) return;
        fired = true;
        await fsp.rename(path.join(home, "notes"), path.join(home, "notes.bak"));
        await fsp.symlink(outside, path.join(home, "notes"));
      },
    };
    const out = okOutput<{ matches: { path: string; text: string }[]; skipped: number }>(
      await runTool(tools(hooks).search, { query: "milk" }),
    );
    expect(fired).toBe(true);
    expect(out.matches.map((m) => m.text)).not.toContain("milk from outside");
    expect(out.skipped).toBe(1);
  });

  it("refuses an empty query and a glob with control characters", async () => {
    expect(errorText(await runTool(tools().search, { query: "" }))).toMatch(/query/);
    expect(errorText(await runTool(tools().search, { query: "x", glob: "a\u0007" }))).toMatch(
      /control characters/,
    );
  });
});
