import type { BudgetLimits, BudgetUsed, Checkpoint, ExecutionTreeBuilder } from "@agentwire-chat/agents";
import type { ChatContext, TurnUsage } from "@agentwire-chat/protocol";
import type { FrameLog, Repositories } from "@agentwire-chat/storage";
import type { FastifyBaseLogger } from "fastify";
import type { ActiveTurn } from "./active-turn.js";
import type { AdmissionQueue } from "./admission-queue.js";
import { turnObserverOf } from "./compose-observers.js";
import type { SpendLimits, SpendTracker } from "./spend-limits.js";
import type { ThreadStateNotifier } from "./thread-state-notifier.js";
import { localCoordination, type TurnCoordination } from "./turn-coordination.js";
import type { TurnObserver, TurnObserverFactory } from "./turn-observer.js";
import type { TurnRegistry } from "./turn-registry.js";

/** What the turn lifecycle needs from the process; the chat services provide it. */
export interface TurnServices {
  turns: TurnRegistry;
  limits: BudgetLimits;
  observer?: TurnObserver | undefined;
  /** A per-segment observer (traces), composed with `observer`; absent: nothing is made per turn. */
  observeTurn?: TurnObserverFactory | undefined;
  /** The other instances (Redis); absent: this process alone owns every turn. */
  coordination?: TurnCoordination | undefined;
  /** Told when a turn starts, waits on the user, resumes or ends (`thread_state` frames). */
  threadStates?: ThreadStateNotifier | undefined;
  /** The server's turn admission (its limits on running and queued turns); absent: no limits. */
  admission?: AdmissionQueue | undefined;
  /** A context scope's limits for its turns (its budget overrides); absent: `limits`. */
  scopes?: { limitsFor(limits: BudgetLimits, kind: string): BudgetLimits } | undefined;
  /** Told once a turn has ended (however it ended): the thread's next queued message starts. */
  afterTurn?: ((ended: TurnEnded) => void) | undefined;
  /** SPEND_LIMIT_* and the policy file's per-user limits, checked at every start; absent: no limits. */
  spendLimits?: SpendLimits | undefined;
}

/** A turn that just ended, as what comes next on its thread needs it. */
export type TurnEnded = {
  userId: string;
  threadId: string;
  repos: Repositories;
  frames: FrameLog;
  logger: FastifyBaseLogger;
};

/** Everything one segment of a turn (a fresh start, or a resume after an answer) runs with, on any route. */
export type TurnSegment = {
  turn: ActiveTurn;
  registry: TurnRegistry;
  repos: Repositories;
  logger: FastifyBaseLogger;
  provider: string;
  model: string;
  limits: BudgetLimits;
  tree: ExecutionTreeBuilder;
  chatContext: ChatContext;
  memoryEnabled: boolean;
  /** Usage and budget counters of earlier segments of the same turn. */
  usageBefore?: TurnUsage;
  budgetUsed?: BudgetUsed;
  observer?: TurnObserver | undefined;
  coordination: TurnCoordination;
  threadStates?: ThreadStateNotifier | undefined;
  /** The checkpoint a turn continued after a crash starts from (its levels' newer ones replace it). */
  checkpoint?: Checkpoint;
  /** Writes queued by the loop's synchronous callbacks, in order (see queueWrite). */
  writes?: Promise<unknown> | undefined;
  afterTurn?: TurnServices["afterTurn"];
  /** The spend limits the segment runs under (its budget's allowance, the usage frame's warning). */
  spend?: SpendTracker | undefined;
};

/** What differs between a turn's segments: who answers, in which context, the tree it builds on, what it carries over. */
export type SegmentSetup = Pick<
  TurnSegment,
  | "provider"
  | "model"
  | "chatContext"
  | "memoryEnabled"
  | "tree"
  | "usageBefore"
  | "budgetUsed"
  | "checkpoint"
  | "spend"
> & { resumed: boolean };

/** The TurnSegment of one segment of a turn, on every route: a start, a resume, a continue, a crash's continuation. */
export function turnSegmentOf(
  services: TurnServices,
  turn: ActiveTurn,
  repos: Repositories,
  logger: FastifyBaseLogger,
  segment: SegmentSetup,
): TurnSegment {
  const { resumed, ...own } = segment;
  const { threadId, turnId } = turn;
  return {
    ...own,
    turn,
    registry: services.turns,
    repos,
    logger: logger.child({ thread_id: threadId, turn_id: turnId }),
    // A context scope's budget replaces the server's limits it names.
    limits: services.scopes?.limitsFor(services.limits, own.chatContext.kind) ?? services.limits,
    observer: turnObserverOf(services, {
      threadId,
      turnId,
      provider: own.provider,
      model: own.model,
      resumed,
    }),
    coordination: services.coordination ?? localCoordination,
    threadStates: services.threadStates,
    afterTurn: services.afterTurn,
  };
}
