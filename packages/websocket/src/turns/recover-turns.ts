import { defaultBudgetLimits } from "@agentwire-chat/agents";
import type { FrameLog, Repositories, TurnRow } from "@agentwire-chat/storage";
import type { FastifyBaseLogger } from "fastify";
import { ActiveTurn } from "./active-turn.js";
import { endTurn } from "./end-turn.js";
import { partialAnswer, rebuildTurn } from "./rebuild-turn.js";
import type { ThreadStateNotifier } from "./thread-state-notifier.js";
import { localCoordination } from "./turn-coordination.js";
import { TurnRegistry } from "./turn-registry.js";

/** How the turn's process left it: `handedOver`, a rolling deploy's handover (not counted as a recovery). */
export type RecoveryCause = { handedOver?: boolean };

/** Continues a turn the previous process left running; false when it cannot (it is then ended). */
export type RecoverTurn = (row: TurnRow, cause?: RecoveryCause) => Promise<boolean>;

/**
 * At start-up no turn of this database can still be running: the process that ran it is gone. Each
 * one is continued from its last checkpoint when `recover` can (TURN_RECOVERY=continue), else
 * ended from its frame log (see endLostTurn). Returns how many were continued and how many ended.
 */
export async function recoverTurns(
  log: FrameLog,
  repos: Repositories,
  logger: FastifyBaseLogger,
  threadStates?: ThreadStateNotifier,
  recover?: RecoverTurn,
): Promise<{ continued: number; interrupted: number }> {
  const rows = await repos.turns.listRunning();
  let continued = 0;
  for (const row of rows)
    if ((await recoverOrEndTurn(log, repos, logger, row, threadStates, recover)) === "continued") continued++;
  await log.flush();
  return { continued, interrupted: rows.length - continued };
}

/**
 * Takes over one turn whose process is gone: continued from its checkpoint when `recover` can,
 * else ended (endLostTurn). A continuation that fails to start ends it like any other that cannot continue.
 */
export async function recoverOrEndTurn(
  log: FrameLog,
  repos: Repositories,
  logger: FastifyBaseLogger,
  row: TurnRow,
  threadStates?: ThreadStateNotifier,
  recover?: RecoverTurn,
  cause?: RecoveryCause,
): Promise<"continued" | "interrupted"> {
  if (recover) {
    try {
      if (await recover(row, cause)) return "continued";
    } catch (err) {
      logger.error({ err, thread_id: row.threadId, turn_id: row.id }, "could not continue a crashed turn");
    }
  }
  await endLostTurn(log, repos, logger, row, threadStates);
  return "interrupted";
}

/**
 * Ends one turn whose process is gone (this one's predecessor, or a dead instance whose lease
 * lapsed): the partial answer and the tree are rebuilt from the frames clients may have received (so
 * the stored text holds every character a client saw), usage from the ledger, then the closing
 * frames (final `message` with status `interrupted`, `usage`, idle, one `done`) follow the stored
 * ones in the thread's log, `resume_chat` replays them like any turn's, and subscribers of its user
 * (on any instance, through the notifier) see the thread go idle.
 */
export async function endLostTurn(
  log: FrameLog,
  repos: Repositories,
  logger: FastifyBaseLogger,
  row: TurnRow,
  threadStates?: ThreadStateNotifier,
): Promise<void> {
  await log.claim(row.threadId);
  const { frames, tree, lastAt, usage, calls } = await rebuildTurn(log, repos, row);
  tree.interrupt(lastAt);
  const turn = new ActiveTurn(log, row.threadId, row.userId, row.id);
  await endTurn(
    {
      turn,
      registry: new TurnRegistry(),
      repos,
      logger: logger.child({ thread_id: row.threadId, turn_id: row.id }),
      provider: row.provider ?? calls[0]?.provider ?? "unknown",
      model: row.model ?? calls[0]?.model ?? "unknown",
      limits: defaultBudgetLimits,
      tree,
      chatContext: { kind: "thread" },
      memoryEnabled: true,
      coordination: localCoordination,
      threadStates,
    },
    { status: "interrupted", usage },
    partialAnswer(frames),
  );
}
