import { ExecutionTreeBuilder, type LoopEvent, UsageAccumulator } from "@agentwire-chat/agents";
import type { ServerFrame, TurnUsage } from "@agentwire-chat/protocol";
import type { FrameLog, LlmCallRow, LoggedFrame, Repositories, TurnRow } from "@agentwire-chat/storage";

/** A turn whose process died, as its frame log and ledger kept it. */
export type RebuiltTurn = {
  frames: ServerFrame[];
  /** Its tree from the frames, on the epoch clock (`Date.now`), each event at the time it was logged. */
  tree: ExecutionTreeBuilder;
  /** When its last frame was logged (epoch ms); undefined without frames. */
  lastAt: number | undefined;
  usage: TurnUsage;
  calls: LlmCallRow[];
};

/** Reads a dead process's turn back: its frames, the tree they draw, and the usage of its ledger. */
export async function rebuildTurn(log: FrameLog, repos: Repositories, row: TurnRow): Promise<RebuiltTurn> {
  // Two stores, one wait: a takeover's time is mostly round trips.
  const [logged, calls] = await Promise.all([
    log.readTurn(row.threadId, row.id),
    repos.llmCalls.forTurn(row.userId, row.id),
  ]);
  const frames = logged.map((f) => JSON.parse(f.json) as ServerFrame);
  // Timed by when each frame was logged: an open call ran at least until the turn's last frame.
  const tree = new ExecutionTreeBuilder({ now: Date.now });
  let lastAt: number | undefined;
  for (const [i, frame] of frames.entries()) {
    lastAt = (logged[i] as LoggedFrame).loggedAt ?? lastAt;
    tree.add(frame as LoopEvent, lastAt);
  }
  const usage = new UsageAccumulator();
  for (const { error, createdAt, ...call } of calls) {
    usage.addLlmCall({ ...call, startedAt: createdAt, ...(error !== null && { error }) });
  }
  return { frames, tree, lastAt, usage: usage.snapshot(), calls };
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
