import type { Checkpoint, CheckpointLevel } from "./checkpoint.js";

/** The checkpoint with every level's model-turn count back at zero: a turn continued with a fresh budget. */
export function withFreshIterations(checkpoint: Checkpoint): Checkpoint {
  return { ...checkpoint, root: fresh(checkpoint.root) };
}

function fresh(level: CheckpointLevel): CheckpointLevel {
  const nested =
    level.nested && Object.fromEntries(Object.entries(level.nested).map(([id, l]) => [id, fresh(l)]));
  return { ...level, iterationsUsed: 0, ...(nested && { nested }) };
}
