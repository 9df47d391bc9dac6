import type { Checkpoint } from "@agentwire-chat/agents";
import { ChatContext } from "@agentwire-chat/protocol";
import { z } from "zod";
import { BudgetUsed } from "./suspended-turn.js";

const Message = z.looseObject({ role: z.enum(["user", "assistant", "tool"]) });

/**
 * The loop's checkpoint as the agents package writes it: checked down to what continuing dispatches
 * on (the root level's conversation and counters); the messages are the loop's own JSON, read back as written.
 */
const LoopCheckpoint = z
  .looseObject({
    version: z.literal(1),
    model: z.string(),
    root: z.looseObject({
      depth: z.number().int().min(0),
      parentId: z.string().nullable(),
      systemPrompt: z.string(),
      toolNames: z.array(z.string()).nullable(),
      messages: z.array(Message).min(1),
      results: z.array(Message),
      iterationsUsed: z.number().int().min(0),
      maxIterations: z.number().int().min(1),
    }),
  })
  .transform((state) => state as unknown as Checkpoint);

/**
 * What `turns.checkpoint` holds for a running turn: its loop state after the last completed model
 * call or tool batch, and what the turn ran with, so restart recovery can continue it. Written by
 * the frame log (JSON text, never parsed on the way in); this schema checks it on the way back.
 */
export const TurnCheckpoint = z.object({
  version: z.literal(1),
  state: LoopCheckpoint,
  budgetUsed: BudgetUsed,
  provider: z.string().min(1),
  model: z.string().min(1),
  chatContext: ChatContext,
  memoryEnabled: z.boolean(),
});
export type TurnCheckpoint = z.output<typeof TurnCheckpoint>;
export type TurnCheckpointInput = z.input<typeof TurnCheckpoint>;

/** Reads a stored checkpoint back, or undefined when there is none this version understands. */
export function readTurnCheckpoint(blob: unknown): TurnCheckpoint | undefined {
  const parsed = TurnCheckpoint.safeParse(blob);
  return parsed.success ? parsed.data : undefined;
}

/**
 * What `turns.checkpoint` holds for a chat turn from its start until the loop's first checkpoint:
 * what the turn runs with, so a turn cut off before any step completed (still queued, or in its
 * first model call) runs again from its user message instead of ending interrupted.
 */
export const TurnStartRecord = z.object({
  version: z.literal(1),
  start: z.object({
    provider: z.string().min(1),
    model: z.string().min(1),
    chatContext: ChatContext,
    memoryEnabled: z.boolean(),
    /** The approved plan the turn runs first (plan_decision), if any. */
    planId: z.string().min(1).optional(),
  }),
});
export type TurnStartRecord = z.output<typeof TurnStartRecord>;

/** Reads a stored start record back, or undefined when the column holds none (or a loop checkpoint). */
export function readTurnStart(blob: unknown): TurnStartRecord["start"] | undefined {
  const parsed = TurnStartRecord.safeParse(blob);
  return parsed.success ? parsed.data.start : undefined;
}
