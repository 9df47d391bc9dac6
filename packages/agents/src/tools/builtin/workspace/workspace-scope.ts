import type { VerifiedFsOptions } from "./verified-fs.js";

/** Size limits of the workspace tools. */
export type WorkspaceLimits = {
  maxReadBytes: number;
  maxWriteBytes: number;
  maxListEntries: number;
  /** search_files: matching lines returned at most. */
  maxSearchMatches: number;
  /** search_files: file bytes read at most per call (files are read whole, up to maxReadBytes each). */
  maxSearchBytes: number;
  /** search_files: files opened at most per call. */
  maxSearchFiles: number;
};

export const defaultWorkspaceLimits: WorkspaceLimits = {
  maxReadBytes: 1024 * 1024,
  maxWriteBytes: 1024 * 1024,
  maxListEntries: 1000,
  maxSearchMatches: 100,
  maxSearchBytes: 8 * 1024 * 1024,
  maxSearchFiles: 2000,
};

/** What every workspace tool of one user shares: the user's root (created on first use), hooks, limits. */
export type WorkspaceScope = {
  root: () => Promise<string>;
  hooks: VerifiedFsOptions;
  limits: WorkspaceLimits;
};
