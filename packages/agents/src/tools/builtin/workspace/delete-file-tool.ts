import { promises as fsp } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defineTool, ok, toolError } from "../../define-tool.js";
import type { Tool } from "../../tool.js";
import { guarded } from "./guarded-path.js";
import { anchorStillInside, walkDirs } from "./verified-fs.js";
import type { WorkspaceScope } from "./workspace-scope.js";

const DeleteFileArgs = z.object({ path: z.string() });

/**
 * delete_file: removes one regular file of the workspace. The parent directories are walked and
 * verified like write_file's (never created), and the unlink is made relative to the verified
 * directory's fd; symlinks, directories and anything else are refused, nothing deleted.
 */
export function createDeleteFileTool(scope: WorkspaceScope): Tool {
  return defineTool({
    name: "delete_file",
    description: "Delete one file of your workspace (not a directory or a symbolic link).",
    args: DeleteFileArgs,
    permissionClass: "workspace_write",
    parallelSafe: false,
    requiresExclusiveLock: "workspace_fs",
    execute: ({ path: p }) =>
      guarded(p, async (comps, shown) => {
        const name = comps.at(-1);
        if (name === undefined) return toolError("delete_file needs a file path, not the workspace itself");
        const base = await scope.root();
        const dir = await walkDirs(base, comps.slice(0, -1), false, scope.hooks);
        if (!dir.ok) return toolError(dir.reason);
        try {
          const target = `${dir.value.prefix}/${name}`;
          const st = await fsp.lstat(target);
          if (st.isSymbolicLink()) return toolError(`${shown} is a symbolic link; refusing to delete it`);
          if (st.isDirectory()) return toolError(`${shown} is a directory; delete_file deletes files only`);
          if (!st.isFile()) return toolError(`${shown} is not a regular file; refusing to delete it`);
          await scope.hooks.beforeOpen?.(path.join(dir.value.real, name));
          if (!(await anchorStillInside(base, dir.value, scope.hooks))) {
            return toolError("the directory was moved while deleting; refusing");
          }
          await fsp.unlink(target);
          return ok({ path: shown, deleted: true, bytes: st.size });
        } finally {
          await dir.value.handle.close();
        }
      }),
  });
}
