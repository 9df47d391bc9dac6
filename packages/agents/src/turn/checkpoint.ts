import type { SuspendedLevel } from "./suspended-state.js";

/**
 * One level of a running turn at its last completed step, in the shape a suspension stores (see
 * SuspendedLevel) without a pending call: `messages` end with the assistant message whose calls run
 * (or with their results, when the next step is a model call), `results` holds the calls of that
 * message already finished.
 */
export type CheckpointLevel = Omit<SuspendedLevel, "pendingCall" | "deferred" | "tool">;

/**
 * A running turn's loop state after a completed model call or tool batch: enough to continue it
 * after a crash (the model call in flight is made again; a tool call in flight is run again only when
 * its tool is idempotent). Plain JSON; the latest one of a turn replaces the one before.
 */
export type Checkpoint = {
  version: 1;
  model: string;
  root: CheckpointLevel;
};

/** What the loop yields at a checkpoint: for the turn driver to store with the frames before it, never sent. */
export type CheckpointEvent = { type: "checkpoint"; checkpoint: Checkpoint };
