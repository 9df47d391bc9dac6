import type { PermissionClass } from "./permission-class.js";

/** Something that can suspend the turn until the user answers; plain JSON so it can be stored. */
export type Suspension =
  | { kind: "question"; question: string }
  | {
      kind: "approval";
      approvalId: string;
      toolName: string;
      permissionClass: PermissionClass;
      args: unknown;
    };
