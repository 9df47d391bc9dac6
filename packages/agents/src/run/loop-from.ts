import type { LoopCommon } from "../loop/loop-common.js";
import type { StartFrom } from "../loop/start-from.js";
import type { CheckpointFrom } from "../suspend/continue-checkpoint.js";
import type { SuspendedFrom } from "../suspend/resume-params.js";

/** Where a turn's loop starts from: a user's message, an answer to a suspension, or a checkpoint. */
export type LoopFrom = StartFrom | SuspendedFrom | CheckpointFrom;

/** The one way into a turn's loop: where it starts from, and what every start shares. */
export type RunAgentLoopParams = LoopCommon & { from: LoopFrom };
