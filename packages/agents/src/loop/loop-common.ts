import type { RunLoopParams } from "./run-loop-params.js";

/** What every way into a turn's loop shares: the provider, the root toolbelt and the turn's context. */
export type LoopCommon = Pick<
  RunLoopParams,
  "provider" | "tools" | "ctx" | "signal" | "maxTokens" | "settings" | "context"
>;
