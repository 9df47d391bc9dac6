import { abortTurn, LEASE_LOST } from "@agentwire-chat/agents";
import { AgentwireError } from "@agentwire-chat/protocol";
import type { FrameLog, Repositories } from "@agentwire-chat/storage";
import type { FastifyBaseLogger } from "fastify";
import type { ActiveTurn } from "./active-turn.js";
import type { AdmissionTicket } from "./admission-queue.js";
import { driveWhenAdmitted, reserveTurn } from "./admit-turn.js";
import { type DriveOptions, driveTurn, type TurnStart } from "./drive-turn.js";
import type { TurnConnection } from "./turn-connection.js";
import { localCoordination } from "./turn-coordination.js";
import { type SegmentSetup, type TurnSegment, type TurnServices, turnSegmentOf } from "./turn-segment.js";
import { watchTurn } from "./watch-turn.js";

/** The ways a turn opens (docs/glossary.md): each enters through `openTurn`. */
export type OpeningVerb = "start" | "resume" | "extend" | "recover" | "hand over";

/**
 * Where an opening takes its place among the server's turns: `queue` waits its turn behind the
 * others (a new message, `continue_turn`), `now` takes a live slot at once (a turn the user answered
 * already had one), `ahead` goes before every queued turn (a turn another process left), `none` runs
 * outside the admission limits (media and workflow turns).
 */
export type OpeningAdmission = "queue" | "now" | "ahead" | "none";

/** A place taken before the opening (see `admissionTicket`), so that a refusal comes before any write. */
export type ReservedAdmission = { reserved: AdmissionTicket | undefined };

/** What differs between the openings of a turn; `openTurn` does everything they share. */
export type TurnOpening = {
  verb: OpeningVerb;
  log: FrameLog;
  repos: Repositories;
  threadId: string;
  userId: string;
  turnId: string;
  logger: FastifyBaseLogger;
  /** The turn this process holds waiting on the user (a resume); absent: registered here, or busy. */
  waiting?: ActiveTurn;
  /** The socket that opened the turn, made a watcher of its thread; absent for a recovery. */
  conn?: TurnConnection;
  admission: OpeningAdmission | ReservedAdmission;
  /**
   * The opening's writes to the turn's row (the only ones before its first frame), once the thread is
   * claimed everywhere; returns what the segment runs with.
   */
  rows(turn: ActiveTurn): Promise<SegmentSetup>;
  /** Puts the row back as `rows` found it, when a later step of the opening fails. */
  undoRows?(): Promise<unknown>;
  /** The frames and rows the segment begins with (the user's message, `agent_state resumed`...). */
  begin?(segment: TurnSegment): Promise<void>;
  /** The segment's source, built inside the driver once admitted. */
  start(segment: TurnSegment): TurnStart;
  drive?: DriveOptions;
};

const BUSY = "a turn is already running on this thread";

/**
 * The one door every turn opens through: its place in the admission queue, the thread's claim in
 * this process and across instances, the frame log's claim, the opening's rows, the watch by the
 * socket that opened it, its first frames, and the driver once admitted. Every step that fails
 * undoes the ones before it, so a turn is never left `running` with nothing driving it (the row put
 * back, the claims given up, the slot released) and the error reaches the caller: `busy` when the
 * thread is taken, `overloaded` when the queue is full, else what failed.
 */
export async function openTurn(services: TurnServices, opening: TurnOpening): Promise<TurnSegment> {
  const { threadId, turnId } = opening;
  // Synchronously, before anything is stored: a full queue refuses the turn with nothing written.
  const ticket =
    typeof opening.admission === "string"
      ? admissionTicket(services, opening.userId, opening.admission)
      : opening.admission.reserved;
  const turn = opening.waiting
    ? takeWaiting(opening.waiting)
    : services.turns.start(opening.log, threadId, opening.userId, turnId);
  if (!turn) {
    ticket?.release();
    throw new AgentwireError("busy", BUSY);
  }
  const coordination = services.coordination ?? localCoordination;
  const undo: Array<() => Promise<unknown>> = [];
  let announced = false;
  try {
    // Across instances next; the row is written only once the thread is ours everywhere.
    if (!(await coordination.claim(threadId, turnId, () => abortTurn(turn.abort, LEASE_LOST))))
      throw new AgentwireError("busy", BUSY);
    undo.push(() => coordination.release(threadId, turnId));
    const [claimed, setup] = await Promise.allSettled([turn.log.claim(threadId), opening.rows(turn)]);
    // Unpinned again; the thread's subscribers stay and follow whoever appends next.
    if (claimed.status === "fulfilled") undo.push(async () => turn.log.handOff(threadId));
    if (setup.status === "fulfilled" && opening.undoRows) undo.push(opening.undoRows);
    if (claimed.status === "rejected") throw claimed.reason;
    if (setup.status === "rejected") throw setup.reason;
    const segment = turnSegmentOf(services, turn, opening.repos, opening.logger, setup.value);
    services.threadStates?.changed({ userId: opening.userId, threadId, state: "running" });
    announced = true;
    if (opening.conn) watchTurn(opening.conn, turn);
    await opening.begin?.(segment);
    const start = opening.start(segment);
    driveWhenAdmitted(segment, ticket, () => driveTurn(segment, start, opening.drive));
    return segment;
  } catch (error) {
    ticket?.release();
    await rollBack(services, opening, turn, undo.reverse(), announced);
    throw error;
  }
}

/** A waiting turn is taken synchronously, so a second answer in this process finds it taken. */
function takeWaiting(turn: ActiveTurn): ActiveTurn | undefined {
  if (turn.status !== "waiting_user") return undefined;
  turn.status = "running";
  return turn;
}

/** The opening's place among the server's turns; a full queue refuses it (`overloaded`) before any write. */
export function admissionTicket(
  services: TurnServices,
  userId: string,
  kind: OpeningAdmission,
): AdmissionTicket | undefined {
  const { admission } = services;
  switch (kind) {
    case "queue":
      return reserveTurn(admission, userId);
    case "now":
      return admission?.admitNow(userId);
    case "ahead":
      return admission?.reserveAhead(userId);
    case "none":
      return undefined;
  }
}

/**
 * Undoes a failed opening, newest step first; a step that fails too only logs (a lease lapses by
 * itself, a row left `running` is a crashed turn's, which recovery ends). A turn that waited on the
 * user waits again; a turn registered here leaves the registry, so the thread takes new turns.
 */
async function rollBack(
  services: TurnServices,
  opening: TurnOpening,
  turn: ActiveTurn,
  undo: Array<() => Promise<unknown>>,
  announced: boolean,
): Promise<void> {
  if (opening.waiting) turn.status = "waiting_user";
  else {
    services.turns.finish(turn);
    turn.status = "error";
    // Only a new turn can fail after it was announced (in its first frames); a resume has none.
    if (announced)
      services.threadStates?.changed({ userId: opening.userId, threadId: opening.threadId, state: "idle" });
  }
  for (const step of undo) {
    try {
      await step();
    } catch (err) {
      opening.logger.warn(
        { err, thread_id: opening.threadId, turn_id: opening.turnId },
        "could not undo a step of a failed turn opening",
      );
    }
  }
}
