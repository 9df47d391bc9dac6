import type { LoopCommon } from "../loop/loop-common.js";
import type { Tool } from "../tools/tool.js";
import type { SuspendedState } from "../turn/suspended-state.js";

/**
 * How the pending call is answered: its result (the user's answer, a denial), or, for an approval,
 * the approved tool (unwrapped from its gate), which then runs as the call with the suspension's args.
 */
export type ResumeAnswer = string | { content: string; isError?: boolean } | { approved: Tool };

/** A turn that waited on the user, resumed with the answer (or the approval) it waited for. */
export type SuspendedFrom = {
  kind: "suspended";
  state: SuspendedState;
  answer: ResumeAnswer;
  /** Defaults to the model the turn was started with. */
  model?: string;
  /**
   * How long each waiting call (by id) had been open when the answer came, wait included: its
   * `end` counts from then, not from the resume (a subtask that waited 12 s on the user took 12 s).
   */
  openFor?: Readonly<Record<string, number>>;
};

/** What resuming needs: the saved state and its answer, and the same provider, root toolbelt and turn context. */
export type ResumeParams = LoopCommon & Omit<SuspendedFrom, "kind">;
