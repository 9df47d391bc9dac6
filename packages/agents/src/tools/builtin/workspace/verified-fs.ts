import { constants, promises as fsp } from "node:fs";
import path from "node:path";
import { type Checked, isWithin } from "./confine-path.js";

type FileHandle = fsp.FileHandle;

/** Test-only instrumentation and platform switches for the confined filesystem. */
export type VerifiedFsOptions = {
  /** Called right before every open of a checked path: lets tests swap a directory mid-call. */
  beforeOpen?: (checkedPath: string) => Promise<void> | void;
  /**
   * Use /proc/self/fd to name opened directories (an openat() stand-in) and to read back what an fd
   * really is. Default: on when /proc/self/fd exists (Linux). Off: realpath + fstat comparison.
   */
  procFd?: boolean;
};

/** An open directory verified to lie inside the root; `prefix` names it for path-based calls. */
export type DirAnchor = { handle: FileHandle; real: string; prefix: string };

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
const CHANGED = "the path changed while it was being opened (a directory was replaced); refusing";
const ESCAPES = "the path leaves your workspace (a symbolic link points outside it); refusing";
const HARD_LINKED =
  "the file has more than one hard link (it may be a file outside your workspace); refusing";

let procFdProbe: Promise<boolean> | undefined;
/** Whether /proc/self/fd can stand in for openat() on this host. */
export function procFdAvailable(): Promise<boolean> {
  procFdProbe ??= fsp
    .readlink("/proc/self/fd/0")
    .then(() => true)
    .catch(() => false);
  return procFdProbe;
}

async function useProc(opts: VerifiedFsOptions): Promise<boolean> {
  return opts.procFd ?? (await procFdAvailable());
}

/** Where an open fd really is: the kernel's answer on Linux, else realpath checked against fstat. */
async function openedRealPath(fh: FileHandle, openedAs: string, proc: boolean): Promise<string | null> {
  if (proc) return fsp.readlink(`/proc/self/fd/${fh.fd}`).catch(() => null);
  try {
    const real = await fsp.realpath(openedAs);
    const [a, b] = await Promise.all([fh.stat(), fsp.stat(real)]);
    return a.dev === b.dev && a.ino === b.ino ? real : null;
  } catch {
    return null;
  }
}

/**
 * Opens an existing file or directory by path: realpath, confine to `root`, open without following
 * a final link, then confirm the fd is the checked path (closing the check-to-open window); a regular
 * file with more than one hard link is refused.
 */
export async function openConfined(
  root: string,
  components: readonly string[],
  kind: "file" | "directory",
  opts: VerifiedFsOptions,
): Promise<Checked<{ handle: FileHandle; real: string; prefix: string }>> {
  const proc = await useProc(opts);
  const real = await fsp.realpath(path.join(root, ...components));
  if (!isWithin(root, real)) return { ok: false, reason: ESCAPES };
  await opts.beforeOpen?.(real);
  const flags = O_RDONLY | O_NOFOLLOW | O_NOCTTY | (kind === "directory" ? O_DIRECTORY : O_NONBLOCK);
  let handle: FileHandle;
  try {
    handle = await fsp.open(real, flags);
  } catch (err) {
    if (errCode(err) === "ELOOP") return { ok: false, reason: CHANGED };
    throw err;
  }
  const actual = await openedRealPath(handle, real, proc);
  if (actual !== real) {
    await handle.close();
    return { ok: false, reason: CHANGED };
  }
  // A hard link is the same inode under two names: one planted inside the root would hand out a file
  // that lives outside it, and no path check can see that. A regular file with a second name is refused.
  if (kind === "file") {
    const st = await handle.stat();
    if (st.isFile() && st.nlink > 1) {
      await handle.close();
      return { ok: false, reason: HARD_LINKED };
    }
  }
  return { ok: true, value: { handle, real, prefix: proc ? `/proc/self/fd/${handle.fd}` : real } };
}

/** Opens the root itself as the first anchor of a walk. */
export async function openRootAnchor(root: string, opts: VerifiedFsOptions): Promise<Checked<DirAnchor>> {
  return openConfined(root, [], "directory", opts);
}

/**
 * Opens (creating with mode 0700 when asked) `name` inside an anchor and checks where the fd landed.
 * With /proc the mkdir and open are relative to the anchor's fd, so a swapped parent cannot redirect them.
 */
export async function openChildDir(
  root: string,
  parent: DirAnchor,
  name: string,
  create: boolean,
  opts: VerifiedFsOptions,
): Promise<Checked<DirAnchor>> {
  const proc = await useProc(opts);
  const target = `${parent.prefix}/${name}`;
  if (create) {
    await fsp.mkdir(target, { mode: 0o700 }).catch((err: unknown) => {
      if (errCode(err) !== "EEXIST") throw err;
    });
  }
  await opts.beforeOpen?.(path.join(parent.real, name));
  // Intermediate links are followed on purpose (a link to a directory inside the root is fine);
  // where the fd landed is what gets checked.
  const handle = await fsp.open(target, O_RDONLY | O_DIRECTORY | O_NOCTTY);
  const real = await openedRealPath(handle, target, proc);
  if (real === null || !isWithin(root, real)) {
    await handle.close();
    return { ok: false, reason: real === null ? CHANGED : ESCAPES };
  }
  return { ok: true, value: { handle, real, prefix: proc ? `/proc/self/fd/${handle.fd}` : real } };
}

/** Re-reads where an anchor is; false when its directory has been moved out of the root. */
export async function anchorStillInside(root: string, anchor: DirAnchor, opts: VerifiedFsOptions) {
  const real = await openedRealPath(anchor.handle, anchor.real, await useProc(opts));
  return real !== null && isWithin(root, real);
}

/** The errno code of a Node fs error, if any. */
export function errCode(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err ? String(err.code) : undefined;
}

/** A model-facing description of a filesystem failure that never shows host paths. */
export function describeFsError(err: unknown, shown: string): string {
  switch (errCode(err)) {
    case "ENOENT":
      return `no such file or directory: ${shown}`;
    case "ENOTDIR":
      return `a component of ${shown} is not a directory`;
    case "EISDIR":
      return `${shown} is a directory`;
    case "ELOOP":
      return `${shown} is a symbolic link or has too many levels of links; refusing`;
    case "EACCES":
    case "EPERM":
      return `permission denied: ${shown}`;
    case "ENOSPC":
    case "EDQUOT":
      return "no space left in the workspace";
    case "ENAMETOOLONG":
      return `path is too long: ${shown}`;
    default:
      return `filesystem error (${errCode(err) ?? "unknown"}) on ${shown}`;
  }
}

/**
 * Opens each directory of `comps` under the root in turn, each one verified; missing ones are created
 * (0700) when `create`, otherwise the walk fails with ENOENT.
 */
export async function walkDirs(
  root: string,
  comps: readonly string[],
  create: boolean,
  opts: VerifiedFsOptions,
): Promise<Checked<DirAnchor>> {
  const first = await openRootAnchor(root, opts);
  if (!first.ok) return first;
  let current = first.value;
  for (const comp of comps) {
    const parent = current;
    const next = await openChildDir(root, parent, comp, create, opts).finally(() => parent.handle.close());
    if (!next.ok) return next;
    current = next.value;
  }
  return { ok: true, value: current };
}
