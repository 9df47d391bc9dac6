import {
  defaultBudgetLimits,
  ExecutionTreeBuilder,
  type LoopEvent,
  UsageAccumulator,
} from "@agentwire/agents";
import type { ServerFrame } from "@agentwire/protocol";
import type { FrameLog, LoggedFrame, Repositories, TurnRow } from "@agentwire/storage";
import type { FastifyBaseLogger } from "fastify";
import { endTurn } from "./end-turn.js";
import { RunningTurn } from "./running-turn.js";
import type { ThreadStateNotifier } from "./thread-state-notifier.js";
import { localCoordination } from "./turn-coordination.js";
import { TurnRegistry } from "./turn-registry.js";

/**
 * At start-up no turn of this database can still be running: the process that ran it is gone. Ends
 * each one from its frame log: the partial answer and the tree are rebuilt from the frames clients
 * may have received (so the stored text holds every character a client saw), usage from the ledger,
 * then the closing frames (final `message` with status `interrupted`, `usage`, idle, one `done`)
 * follow the stored ones, and `resume_chat` replays them like any turn's. Returns how many it ended.
 */
export async function recoverInterruptedTurns(
  log: FrameLog,
  repos: Repositories,
  logger: FastifyBaseLogger,
  threadStates?: ThreadStateNotifier,
): Promise<number> {
  const rows = await repos.turns.listRunning();
  for (const row of rows) await recoverTurn(log, repos, logger, row, threadStates);
  await log.flush();
  return rows.length;
}

/**
 * Ends one turn whose process is gone (this one's predecessor, or a dead instance whose lease
 * lapsed): its closing frames follow its stored ones in the thread's log, and subscribers of its user
 * (on any instance, through the notifier) see the thread go idle.
 */
export async function recoverTurn(
  log: FrameLog,
  repos: Repositories,
  logger: FastifyBaseLogger,
  row: TurnRow,
  threadStates?: ThreadStateNotifier,
): Promise<void> {
  {
    await log.claim(row.threadId);
    const logged = await log.readTurn(row.threadId, row.id);
    const frames = logged.map(parse);
    // Timed by when each frame was logged: an open call ran at least until the turn's last frame.
    const tree = new ExecutionTreeBuilder({ now: Date.now });
    let lastAt: number | undefined;
    for (const [i, frame] of frames.entries()) {
      lastAt = (logged[i] as LoggedFrame).loggedAt ?? lastAt;
      tree.add(frame as LoopEvent, lastAt);
    }
    tree.interrupt(lastAt);
    const usage = new UsageAccumulator();
    const calls = await repos.llmCalls.forTurn(row.userId, row.id);
    for (const { error, createdAt, ...call } of calls) {
      usage.addLlmCall({ ...call, startedAt: createdAt, ...(error !== null && { error }) });
    }
    const turn = new RunningTurn(log, row.threadId, row.userId, row.id);
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
      { status: "interrupted", usage: usage.snapshot() },
      partialAnswer(frames),
    );
  }
}

function parse(frame: LoggedFrame): ServerFrame {
  return JSON.parse(frame.json) as ServerFrame;
}

/** The root's text after its last stored row: what the model streamed of the step that never ended. */
export function partialAnswer(frames: readonly ServerFrame[]): string {
  let text = "";
  for (const frame of frames) {
    if (frame.type === "message") text = "";
    else if (frame.type === "chunk" && frame.depth === 0 && !frame.thinking && !frame.done)
      text += frame.content;
  }
  return text;
}
