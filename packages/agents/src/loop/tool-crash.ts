import { randomBytes } from "node:crypto";

/**
 * A tool that threw (a bug, not an error result it chose). The model and clients get only the tool's
 * name and `ref`; the server logs the rest under that ref.
 */
export type ToolCrash = {
  tool: string;
  toolCallId: string;
  parentId: string | null;
  depth: number;
  /** Short random id in both the log line and the text the model and clients see. */
  ref: string;
  error: unknown;
};

/** A fresh ref for one crash. */
export function crashRef(): string {
  return randomBytes(6).toString("hex");
}
