import { abortedStatus, UsageAccumulator } from "@agentwire-chat/agents";
import { AgentwireError } from "@agentwire-chat/protocol";
import type { AdmissionQueue, AdmissionTicket } from "./admission-queue.js";
import { endTurn } from "./end-turn.js";
import { handingOver, handOverTurn } from "./hand-over-turn.js";
import type { TurnSegment } from "./turn-segment.js";

/**
 * A new turn's place in the admission queue, taken before anything is stored: a full queue refuses
 * the turn with `overloaded` (no thread, no row, no frame). Undefined without a queue.
 */
export function reserveTurn(
  admission: AdmissionQueue | undefined,
  userId: string,
): AdmissionTicket | undefined {
  if (!admission) return undefined;
  const ticket = admission.reserve(userId);
  if (!ticket) throw new AgentwireError("overloaded", "the server is at capacity; retry later with backoff");
  return ticket;
}

/**
 * Starts the turn's driver once its ticket is admitted, and gives the slot back when the driver is
 * done (the turn ended or waits on the user). Admitted already: the driver starts at once, no frame
 * and nothing awaited. Else the client gets `agent_state queued` and the turn waits; a stop (or a
 * shutdown) while it waits ends it through the normal ending (stored `stopped` or `interrupted`)
 * without the driver ever running. The driver starts only once admitted, so the turn's budget,
 * wall clock included, counts from admission.
 */
export function driveWhenAdmitted(
  run: TurnSegment,
  ticket: AdmissionTicket | undefined,
  drive: () => Promise<void>,
): void {
  if (!ticket) {
    void drive();
    return;
  }
  const release = () => ticket.release();
  if (ticket.admitted) {
    void drive().then(release, release);
    return;
  }
  // Shutdown waits on `driving`: the wait is part of it until the driver takes over.
  run.turn.driving = waitThenDrive(run, ticket, drive).then(release, release);
}

async function waitThenDrive(
  run: TurnSegment,
  ticket: AdmissionTicket,
  drive: () => Promise<void>,
): Promise<void> {
  const { turn } = run;
  turn.emit({ type: "agent_state", state: "queued" });
  const { signal } = turn.abort;
  // A stop that came with the admission still wins: the turn never starts.
  if ((await ticket.wait(signal)) && !signal.aborted) return drive();
  // A handover while queued leaves it for another instance, as it would a started one.
  if (handingOver(turn)) return handOverTurn(run);
  await endTurn(run, { status: abortedStatus(signal), usage: new UsageAccumulator().snapshot() }, "");
}
