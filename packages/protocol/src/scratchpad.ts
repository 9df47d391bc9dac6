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

/**
 * One change to the scratchpad, by the model's scratchpad_update tool or the summarizer's proposals.
 * There is no delete: `resolve` and `discard` close an item and keep it.
 */
export const ScratchpadOp = z.discriminatedUnion("op", [
  z.strictObject({
    op: z.literal("add"),
    kind: ScratchpadKind,
    title: z.string().min(1).max(300),
    details: z.string().max(4000).optional(),
    related_ids: z.array(z.string().max(100)).max(20).optional(),
  }),
  z.strictObject({
    op: z.literal("update"),
    id: z.string().min(1).max(100),
    kind: ScratchpadKind.optional(),
    title: z.string().min(1).max(300).optional(),
    details: z.string().max(4000).optional(),
    related_ids: z.array(z.string().max(100)).max(20).optional(),
  }),
  z.strictObject({ op: z.literal("resolve"), id: z.string().min(1).max(100) }),
  z.strictObject({ op: z.literal("discard"), id: z.string().min(1).max(100) }),
]);
export type ScratchpadOp = z.infer<typeof ScratchpadOp>;
