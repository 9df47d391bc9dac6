import { promises as fsp } from "node:fs";
import { z } from "zod";
import { defineTool, ok, toolError } from "../../define-tool.js";
import type { Tool } from "../../tool.js";
import { compileGlob, type Glob, globMatches } from "./glob-match.js";
import { type DirAnchor, openChildDir, openConfined, openRootAnchor } from "./verified-fs.js";
import type { WorkspaceScope } from "./workspace-scope.js";

const SearchFilesArgs = z.object({ query: z.string().min(1).max(200), glob: z.string().optional() });

const MAX_DEPTH = 64;
const MAX_LINE_CHARS = 300;

type Match = { path: string; line: number; text: string };

/** What one search has found and spent so far; `stop` ends the walk once a bound is reached. */
type SearchState = {
  needle: string;
  glob: Glob | undefined;
  matches: Match[];
  filesSearched: number;
  bytesRead: number;
  entriesSeen: number;
  skipped: number;
  truncated: boolean;
  signal: AbortSignal;
};

/**
 * search_files: case-insensitive text search of the workspace's files (optionally those matching
 * `glob`). Directories are walked fd by fd like write_file's, symbolic links are not followed, each
 * file is opened the way read_file opens it; matches, files opened and bytes read are bounded.
 */
export function createSearchFilesTool(scope: WorkspaceScope): Tool {
  const { limits } = scope;
  return defineTool({
    name: "search_files",
    description:
      `Search the text files of your workspace for a string (case-insensitive); optional glob such as "*.md" ` +
      `(a name in any directory) or "notes/**/*.txt" (a path). At most ${limits.maxSearchMatches} matching lines.`,
    args: SearchFilesArgs,
    permissionClass: "safe",
    execute: async ({ query, glob }, ctx) => {
      const compiled = glob === undefined ? undefined : compileGlob(glob);
      if (compiled && !compiled.ok) return toolError(compiled.reason);
      const state: SearchState = {
        needle: query.toLowerCase(),
        glob: compiled?.value,
        matches: [],
        filesSearched: 0,
        bytesRead: 0,
        entriesSeen: 0,
        skipped: 0,
        truncated: false,
        signal: ctx.signal,
      };
      const base = await scope.root();
      const top = await openRootAnchor(base, scope.hooks);
      if (!top.ok) return toolError(top.reason);
      try {
        await walk(scope, base, top.value, [], state);
      } finally {
        await top.value.handle.close();
      }
      return ok({
        query,
        ...(glob !== undefined && { glob }),
        matches: state.matches,
        files_searched: state.filesSearched,
        bytes_read: state.bytesRead,
        skipped: state.skipped,
        truncated: state.truncated,
      });
    },
  });
}

async function walk(
  scope: WorkspaceScope,
  base: string,
  dir: DirAnchor,
  comps: string[],
  state: SearchState,
): Promise<void> {
  const entries: { name: string; kind: "file" | "directory" | "other" }[] = [];
  for await (const d of await fsp.opendir(dir.prefix)) {
    // Listing a huge directory costs too: entries count against ten times the file budget.
    if (++state.entriesSeen > scope.limits.maxSearchFiles * 10) {
      state.truncated = true;
      break;
    }
    entries.push({ name: d.name, kind: d.isFile() ? "file" : d.isDirectory() ? "directory" : "other" });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (state.truncated || state.signal.aborted) return;
    const childComps = [...comps, entry.name];
    try {
      if (entry.kind === "directory") {
        if (childComps.length >= MAX_DEPTH) continue;
        const child = await openChildDir(base, dir, entry.name, false, scope.hooks);
        if (!child.ok) {
          state.skipped++;
          continue;
        }
        try {
          await walk(scope, base, child.value, childComps, state);
        } finally {
          await child.value.handle.close();
        }
      } else if (entry.kind === "file") {
        if (state.glob && !globMatches(state.glob, childComps.join("/"))) continue;
        await searchFile(scope, base, childComps, state);
      }
      // Symbolic links and special files are not searched: a link is only followed by name (read_file).
    } catch {
      // A file that vanished or cannot be read mid-walk does not end the search.
      state.skipped++;
    }
  }
}

async function searchFile(scope: WorkspaceScope, base: string, comps: string[], state: SearchState) {
  const { limits } = scope;
  if (state.filesSearched >= limits.maxSearchFiles) {
    state.truncated = true;
    return;
  }
  const file = await openConfined(base, comps, "file", scope.hooks);
  if (!file.ok) {
    state.skipped++;
    return;
  }
  const fh = file.value.handle;
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > limits.maxReadBytes) {
      state.skipped++;
      return;
    }
    if (state.bytesRead + st.size > limits.maxSearchBytes) {
      state.truncated = true;
      return;
    }
    state.filesSearched++;
    const buf = Buffer.alloc(st.size);
    const { bytesRead } = await fh.read(buf, 0, st.size, 0);
    state.bytesRead += bytesRead;
    const data = buf.subarray(0, bytesRead);
    if (data.includes(0)) return; // binary
    const shown = comps.join("/");
    const lines = data.toString("utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (!line.toLowerCase().includes(state.needle)) continue;
      if (state.matches.length >= limits.maxSearchMatches) {
        state.truncated = true;
        return;
      }
      state.matches.push({ path: shown, line: i + 1, text: line.slice(0, MAX_LINE_CHARS) });
    }
  } finally {
    await fh.close();
  }
}
