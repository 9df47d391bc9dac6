import { z } from "zod";

export const ScratchpadKind = z.enum(["task", "note", "idea", "question", "assumption"]);
export type ScratchpadKind = z.infer<typeof ScratchpadKind>;
export const ScratchpadStatus = z.enum(["active", "resolved", "discarded"]);
export type ScratchpadStatus = z.infer<typeof ScratchpadStatus>;

/**
 * One item of a thread's agent scratchpad: what the agent keeps in mind across turns. Items are never
 * deleted; a finished or abandoned one is `resolved` or `discarded`.
 */
export const ScratchpadItem = z.object({
  id: z.string(),
  kind: ScratchpadKind,
  title: z.string(),
  details: z.string().optional(),
  status: ScratchpadStatus,
  related_ids: z.array(z.string()).optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ScratchpadItem = z.infer<typeof ScratchpadItem>;
