import { randomBytes } from "node:crypto";
import { constants, promises as fsp } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defineTool, ok, toolError } from "../../define-tool.js";
import type { Tool, ToolOutcome } from "../../tool.js";
import { userDirName } from "./confine-path.js";
import { createDeleteFileTool } from "./delete-file-tool.js";
import { guarded } from "./guarded-path.js";
import { createSearchFilesTool } from "./search-files-tool.js";
import {
  anchorStillInside,
  type DirAnchor,
  errCode,
  openConfined,
  openRootAnchor,
  type VerifiedFsOptions,
  walkDirs,
} from "./verified-fs.js";
import { defaultWorkspaceLimits, type WorkspaceLimits, type WorkspaceScope } from "./workspace-scope.js";

export { defaultWorkspaceLimits, type WorkspaceLimits } from "./workspace-scope.js";

// Argument schemas at module level: built once, their JSON Schema is converted once (defineTool caches it).
const ListFilesArgs = z.object({ path: z.string().optional() });
const ReadFileArgs = z.object({ path: z.string() });
const WriteFileArgs = z.object({ path: z.string(), content: z.string() });

/** Options of createWorkspaceTools; `testHooks` exists for the race tests only. */
export type WorkspaceToolsOptions = {
  workspaceRoot: string;
  userId: string;
  limits?: Partial<WorkspaceLimits>;
  testHooks?: VerifiedFsOptions;
};

type EntryType = "file" | "directory" | "symlink" | "other";

/** list_files, read_file, write_file, delete_file and search_files confined to `<workspaceRoot>/<user dir>/`. */
export function createWorkspaceTools(options: WorkspaceToolsOptions): Tool[] {
  const limits = { ...defaultWorkspaceLimits, ...options.limits };
  const hooks = options.testHooks ?? {};
  const dirName = userDirName(options.userId);
  if (!dirName.ok) throw new TypeError(`createWorkspaceTools: ${dirName.reason}`);
  let userRoot: Promise<string> | undefined;
  const root = () => {
    userRoot ??= ensureUserRoot(options.workspaceRoot, dirName.value, hooks).catch((err: unknown) => {
      userRoot = undefined;
      throw err;
    });
    return userRoot;
  };

  const listFiles = defineTool({
    name: "list_files",
    description: `List a directory of your workspace (default: its top). At most ${limits.maxListEntries} entries.`,
    args: ListFilesArgs,
    permissionClass: "safe",
    execute: ({ path: p }) =>
      guarded(p ?? ".", async (comps, shown) => {
        const dir = await openConfined(await root(), comps, "directory", hooks);
        if (!dir.ok) return toolError(dir.reason);
        try {
          const entries: { name: string; type: EntryType; size?: number }[] = [];
          let truncated = false;
          for await (const d of await fsp.opendir(dir.value.prefix)) {
            if (entries.length >= limits.maxListEntries) {
              truncated = true;
              break;
            }
            const type: EntryType = d.isFile()
              ? "file"
              : d.isDirectory()
                ? "directory"
                : d.isSymbolicLink()
                  ? "symlink"
                  : "other";
            const size =
              type === "file" ? (await fsp.lstat(`${dir.value.prefix}/${d.name}`)).size : undefined;
            entries.push({ name: d.name, type, ...(size !== undefined && { size }) });
          }
          entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          return ok({ path: shown, entries, truncated });
        } finally {
          await dir.value.handle.close();
        }
      }),
  });

  const readFile = defineTool({
    name: "read_file",
    description: `Read a UTF-8 text file of your workspace (at most ${limits.maxReadBytes} bytes).`,
    args: ReadFileArgs,
    permissionClass: "safe",
    execute: ({ path: p }) =>
      guarded(p, async (comps, shown) => {
        if (comps.length === 0) return toolError("read_file needs a file path, not the workspace itself");
        const file = await openConfined(await root(), comps, "file", hooks);
        if (!file.ok) return toolError(file.reason);
        const fh = file.value.handle;
        try {
          const st = await fh.stat();
          if (!st.isFile()) return toolError(`${shown} is not a regular file`);
          if (st.size > limits.maxReadBytes) {
            return toolError(`${shown} is ${st.size} bytes; read_file reads at most ${limits.maxReadBytes}`);
          }
          const buf = Buffer.alloc(limits.maxReadBytes + 1);
          const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
          if (bytesRead > limits.maxReadBytes) {
            return toolError(`${shown} is larger than ${limits.maxReadBytes} bytes`);
          }
          const data = buf.subarray(0, bytesRead);
          if (data.includes(0)) return toolError(`${shown} looks binary; read_file returns text only`);
          return ok({ path: shown, bytes: bytesRead, content: data.toString("utf8") });
        } finally {
          await fh.close();
        }
      }),
  });

  const writeFile = defineTool({
    name: "write_file",
    description: `Create or replace a text file in your workspace (at most ${limits.maxWriteBytes} bytes); missing directories are created.`,
    args: WriteFileArgs,
    permissionClass: "workspace_write",
    parallelSafe: false,
    requiresExclusiveLock: "workspace_fs",
    execute: ({ path: p, content }) => {
      const bytes = Buffer.byteLength(content);
      if (bytes > limits.maxWriteBytes) {
        return Promise.resolve(
          toolError(`content is ${bytes} bytes; write_file accepts at most ${limits.maxWriteBytes}`),
        );
      }
      return guarded(p, async (comps, shown) => {
        const name = comps.at(-1);
        if (name === undefined) return toolError("write_file needs a file path, not the workspace itself");
        const base = await root();
        const dir = await walkDirs(base, comps.slice(0, -1), true, hooks);
        if (!dir.ok) return toolError(dir.reason);
        try {
          return await replaceFile(base, dir.value, name, content, shown, hooks);
        } finally {
          await dir.value.handle.close();
        }
      });
    },
  });

  const scope: WorkspaceScope = { root, hooks, limits };
  return [listFiles, readFile, writeFile, createDeleteFileTool(scope), createSearchFilesTool(scope)];
}

/** Creates the workspace root and the user's 0700 directory, refusing a user dir that is a link. */
async function ensureUserRoot(workspaceRoot: string, dirName: string, hooks: VerifiedFsOptions) {
  await fsp.mkdir(workspaceRoot, { recursive: true, mode: 0o700 });
  const realRoot = await fsp.realpath(workspaceRoot);
  const userDir = path.join(realRoot, dirName);
  await fsp.mkdir(userDir, { mode: 0o700 }).catch((err: unknown) => {
    if (errCode(err) !== "EEXIST") throw err;
  });
  const st = await fsp.lstat(userDir);
  if (!st.isDirectory()) throw new Error("user workspace is not a plain directory");
  const anchor = await openRootAnchor(userDir, hooks);
  if (!anchor.ok) throw new Error(anchor.reason);
  await anchor.value.handle.close();
  return userDir;
}

/** Writes a temp file beside the target inside the verified directory, then renames it over the target. */
async function replaceFile(
  root: string,
  dir: DirAnchor,
  name: string,
  content: string,
  shown: string,
  hooks: VerifiedFsOptions,
): Promise<ToolOutcome> {
  const target = `${dir.prefix}/${name}`;
  const existing = await fsp.lstat(target).catch((err: unknown) => {
    if (errCode(err) === "ENOENT") return null;
    throw err;
  });
  if (existing?.isSymbolicLink()) return toolError(`${shown} is a symbolic link; refusing to replace it`);
  if (existing && !existing.isFile()) return toolError(`${shown} exists and is not a regular file`);
  const tmp = `${dir.prefix}/.${name.slice(0, 64)}.${randomBytes(6).toString("hex")}.tmp`;
  await hooks.beforeOpen?.(path.join(dir.real, name));
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
  const fh = await fsp.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    await fh.writeFile(content, "utf8");
  } finally {
    await fh.close();
  }
  if (!(await anchorStillInside(root, dir, hooks))) {
    await fsp.unlink(tmp).catch(() => undefined);
    return toolError("the directory was moved while writing; refusing");
  }
  try {
    await fsp.rename(tmp, target);
  } catch (err) {
    await fsp.unlink(tmp).catch(() => undefined);
    throw err;
  }
  return ok({ path: shown, bytes: Buffer.byteLength(content), created: existing === null });
}
