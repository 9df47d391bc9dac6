import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type {
  RunningTurnKey,
  TurnEnd,
  TurnRow,
  TurnStart,
  TurnsRepo,
  TurnUpdate,
} from "../contract/repositories.js";
import { newTurnRow } from "../contract/turn-rows.js";
import type { PgDb } from "./open-postgres.js";
import { turns } from "./schema/index.js";

/** Turns of a thread, always through the owning user. */
export class PgTurnsRepo implements TurnsRepo {
  constructor(private readonly db: PgDb) {}

  /** Records a running turn on the user's thread. */
  async start(userId: string, threadId: string, who: TurnStart = {}, now = Date.now()): Promise<TurnRow> {
    const row = newTurnRow(userId, threadId, who, now);
    await this.db.insert(turns).values(row);
    return row;
  }

  /** The turn if it belongs to the user. */
  async get(userId: string, turnId: string): Promise<TurnRow | undefined> {
    const rows = await this.db
      .select()
      .from(turns)
      .where(and(eq(turns.id, turnId), eq(turns.userId, userId)))
      .limit(1);
    return rows[0];
  }

  /** The user's most recent turn started by a chat_message with this request_id. */
  async findByRequestId(userId: string, requestId: string): Promise<TurnRow | undefined> {
    const rows = await this.db
      .select()
      .from(turns)
      .where(and(eq(turns.userId, userId), eq(turns.requestId, requestId)))
      .orderBy(desc(turns.startedAt))
      .limit(1);
    return rows[0];
  }

  /** The most recent turn of the user's thread. */
  async latest(userId: string, threadId: string): Promise<TurnRow | undefined> {
    const rows = await this.db
      .select()
      .from(turns)
      .where(and(eq(turns.threadId, threadId), eq(turns.userId, userId)))
      .orderBy(desc(turns.startedAt))
      .limit(1);
    return rows[0];
  }

  /** Ends the user's turn: its final status, usage and error; the suspension is cleared. */
  async end(userId: string, turnId: string, end: TurnEnd): Promise<void> {
    await this.db
      .update(turns)
      .set({
        status: end.status,
        usage: end.usage,
        error: end.error,
        suspendedState: null,
        endedAt: end.endedAt,
      })
      .where(and(eq(turns.id, turnId), eq(turns.userId, userId)));
  }

  /** Threads of the user with a turn waiting on them (a question or an approval). */
  async waitingThreads(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectDistinct({ threadId: turns.threadId })
      .from(turns)
      .where(and(eq(turns.userId, userId), eq(turns.status, "waiting_user")));
    return rows.map((r) => r.threadId);
  }

  /** The user's turns that are running or waiting on them (at most one per thread). */
  async activeTurns(userId: string): Promise<TurnRow[]> {
    return this.db
      .select()
      .from(turns)
      .where(and(eq(turns.userId, userId), inArray(turns.status, ["running", "waiting_user"])));
  }

  /** Updates the user's turn; false when it is not theirs. */
  async update(userId: string, turnId: string, update: TurnUpdate): Promise<boolean> {
    const result = await this.db
      .update(turns)
      .set(update)
      .where(and(eq(turns.id, turnId), eq(turns.userId, userId)));
    return (result.rowCount ?? 0) > 0;
  }

  /** Every turn still marked running, system-wide (restart recovery ends them; not scoped by user). */
  async listRunning(): Promise<TurnRow[]> {
    return this.db.select().from(turns).where(eq(turns.status, "running")).orderBy(asc(turns.startedAt));
  }

  /** The keys of every turn still marked running, system-wide, oldest first (no checkpoint read). */
  async listRunningKeys(): Promise<RunningTurnKey[]> {
    return this.db
      .select({ id: turns.id, threadId: turns.threadId, userId: turns.userId })
      .from(turns)
      .where(eq(turns.status, "running"))
      .orderBy(asc(turns.startedAt));
  }
}
