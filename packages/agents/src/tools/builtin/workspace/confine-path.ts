import path from "node:path";
import { isPrintable } from "@agentwire-chat/protocol";

/** A value or a reason the model can read; confinement never throws for bad input. */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

const MAX_PATH_CHARS = 4096;
const MAX_COMPONENT_BYTES = 255;
const MAX_DEPTH = 64;

/**
 * Splits a model-supplied workspace path into plain components, refusing anything that could
 * leave the workspace lexically: absolute paths, `..`, NUL and control characters.
 * "" and "." mean the workspace itself (an empty list).
 */
export function parseWorkspacePath(input: string): Checked<string[]> {
  if (input.length > MAX_PATH_CHARS) return fail(`path is longer than ${MAX_PATH_CHARS} characters`);
  if (input.includes("\u0000")) return fail("path contains a NUL byte");
  // C0 controls and DEL: NUL truncates C strings, the rest only serve to confuse logs and prompts.
  if (!isPrintable(input)) return fail("path contains control characters");
  if (input.startsWith("/") || input.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(input)) {
    return fail("absolute paths are not allowed; use a path relative to your workspace");
  }
  if (input.startsWith("~")) return fail("'~' is not expanded; use a path relative to your workspace");
  const components: string[] = [];
  for (const part of input.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") return fail("'..' is not allowed in workspace paths");
    if (Buffer.byteLength(part) > MAX_COMPONENT_BYTES) {
      return fail(`a path component is longer than ${MAX_COMPONENT_BYTES} bytes`);
    }
    components.push(part);
  }
  if (components.length > MAX_DEPTH) return fail(`path is deeper than ${MAX_DEPTH} directories`);
  return { ok: true, value: components };
}

/**
 * True when `candidate` is `root` or lies under it, compared component by component
 * (so `/srv/root-evil` is not under `/srv/root`). Both must be absolute and normalised.
 */
export function isWithin(root: string, candidate: string): boolean {
  const rootParts = splitAbsolute(root);
  const parts = splitAbsolute(candidate);
  if (parts.length < rootParts.length) return false;
  return rootParts.every((part, i) => parts[i] === part);
}

function splitAbsolute(p: string): string[] {
  return path
    .resolve(p)
    .split(path.sep)
    .filter((s) => s !== "");
}

/**
 * Maps a user id to one safe directory name, injectively: [A-Za-z0-9-] pass through and every
 * other code unit becomes `_xxxx` (hex), so no id can produce `..`, `/` or another user's name.
 */
export function userDirName(userId: string): Checked<string> {
  if (userId.length === 0) return fail("empty user id");
  if (userId.length > 128) return fail("user id is longer than 128 characters");
  let out = "";
  for (let i = 0; i < userId.length; i++) {
    const ch = userId[i] as string;
    out += /[A-Za-z0-9-]/.test(ch) ? ch : `_${userId.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  return { ok: true, value: out };
}

function fail(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
