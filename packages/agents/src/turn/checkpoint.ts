import type { SuspendedLevel } from "./suspended-state.js";

/**
 * One level of a running turn at its last completed step, in the shape a suspension stores (see
 * SuspendedLevel) without a pending call: `messages` end with the assistant message whose calls run
 * (or with their results, when the next step is a model call), `results` holds the calls of that
 * message already finished, `nested` the levels of its subtasks still running, by their call id.
 */
export type CheckpointLevel = Omit<SuspendedLevel, "pendingCall" | "deferred" | "tool"> & {
  nested?: Record<string, CheckpointLevel>;
};

/**
 * A running turn's loop state after its latest completed model call or tool call, at any depth:
 * enough to continue it after a crash (a model call in flight is made again; a tool call in flight
 * is run again only when its tool is idempotent). Plain JSON; a turn's latest one replaces the one before.
 */
export type Checkpoint = {
  version: 1;
  model: string;
  root: CheckpointLevel;
};

/**
 * What a level yields after a completed step: its own state (no `nested`), for the turn driver to
 * fold into the turn's Checkpoint (CheckpointTree) and store with the frames before it. Never sent.
 */
export type CheckpointEvent = { type: "checkpoint"; level: CheckpointLevel };
