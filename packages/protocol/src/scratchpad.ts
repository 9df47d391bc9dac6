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

/**
 * The user's edit of one item (`PATCH /api/threads/:id/scratchpad/:item_id`): any of these fields, at
 * least one. Unlike the model's ops it may reopen a closed item (`status: "active"`).
 */
// No NUL: Postgres text cannot hold it.
const noNul = (s: string) => !s.includes("\u0000");
export const ScratchpadEdit = z
  .strictObject({
    kind: ScratchpadKind.optional(),
    title: z.string().trim().min(1).max(300).refine(noNul, "must not contain NUL characters").optional(),
    details: z.string().max(4000).refine(noNul, "must not contain NUL characters").optional(),
    status: ScratchpadStatus.optional(),
  })
  .refine((edit) => Object.values(edit).some((v) => v !== undefined), {
    message: "give at least one of kind, title, details, status",
  });
export type ScratchpadEdit = z.infer<typeof ScratchpadEdit>;
