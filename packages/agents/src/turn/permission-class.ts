/** What a tool may touch; the server's policy allows or gates tools by class. */
export type PermissionClass =
  | "safe"
  | "knowledge"
  | "network"
  | "workspace_write"
  | "editor_mutate"
  | "subagent"
  | "secrets";

export const permissionClasses: readonly PermissionClass[] = [
  "safe",
  "knowledge",
  "network",
  "workspace_write",
  "editor_mutate",
  "subagent",
  "secrets",
];
