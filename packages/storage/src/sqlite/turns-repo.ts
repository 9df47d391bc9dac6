import { and, asc, type Column, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type {
  RunningTurnKey,
  TurnEnd,
  TurnRow,
  TurnStart,
  TurnsRepo,
  TurnUpdate,
} from "../contract/repositories.js";
import { newTurnRow } from "../contract/turn-rows.js";
import type { Db } from "./open-database.js";
import { preparedInsert } from "./prepared-insert.js";
import { turns } from "./schema/index.js";

/** Turns of a thread, always through the owning user. */
export class SqliteTurnsRepo implements TurnsRepo {
  // The calls every turn makes, and a cluster's check for dead instances' turns (every quarter lease): prepared once.
  private readonly startStatement;
  private readonly latestStatement;
  private readonly endStatement;
  private readonly runningKeysStatement;

  constructor(private readonly db: Db) {
    const p = sql.placeholder;
    this.startStatement = preparedInsert(db, turns);
    this.latestStatement = db
      .select()
      .from(turns)
      .where(and(eq(turns.threadId, p("threadId")), eq(turns.userId, p("userId"))))
      .orderBy(desc(turns.startedAt))
      .limit(1)
      .prepare();
    this.endStatement = db
      .update(turns)
      .set({
        status: bound("status", turns.status),
        usage: bound("usage", turns.usage),
        error: bound("error", turns.error),
        suspendedState: null,
        endedAt: bound("endedAt", turns.endedAt),
      })
      .where(and(eq(turns.id, p("turnId")), eq(turns.userId, p("userId"))))
      .prepare();
    this.runningKeysStatement = db
      .select({ id: turns.id, threadId: turns.threadId, userId: turns.userId })
      .from(turns)
      .where(eq(turns.status, "running"))
      .orderBy(asc(turns.startedAt))
      .prepare();
  }

  /** Records a running turn on the user's thread. */
  async start(userId: string, threadId: string, who: TurnStart = {}, now = Date.now()): Promise<TurnRow> {
    const row = newTurnRow(userId, threadId, who, now);
    this.startStatement.run(row);
    return row;
  }

  /** The turn if it belongs to the user. */
  async get(userId: string, turnId: string): Promise<TurnRow | undefined> {
    return this.db
      .select()
      .from(turns)
      .where(and(eq(turns.id, turnId), eq(turns.userId, userId)))
      .get();
  }

  /** The user's most recent turn started by a chat_message with this request_id. */
  async findByRequestId(userId: string, requestId: string): Promise<TurnRow | undefined> {
    return this.db
      .select()
      .from(turns)
      .where(and(eq(turns.userId, userId), eq(turns.requestId, requestId)))
      .orderBy(desc(turns.startedAt))
      .limit(1)
      .get();
  }

  /** The most recent turn of the user's thread. */
  async latest(userId: string, threadId: string): Promise<TurnRow | undefined> {
    return this.latestStatement.get({ threadId, userId });
  }

  /** Ends the user's turn: its final status, usage and error; the suspension is cleared. */
  async end(userId: string, turnId: string, end: TurnEnd): Promise<void> {
    this.endStatement.run({ ...end, turnId, userId });
  }

  /** Threads of the user with a turn waiting on them (a question or an approval). */
  async waitingThreads(userId: string): Promise<string[]> {
    return this.db
      .selectDistinct({ threadId: turns.threadId })
      .from(turns)
      .where(and(eq(turns.userId, userId), eq(turns.status, "waiting_user")))
      .all()
      .map((r) => r.threadId);
  }

  /** The user's turns that are running or waiting on them (at most one per thread). */
  async activeTurns(userId: string): Promise<TurnRow[]> {
    return this.db
      .select()
      .from(turns)
      .where(and(eq(turns.userId, userId), inArray(turns.status, ["running", "waiting_user"])))
      .all();
  }

  /** Updates the user's turn; false when it is not theirs. */
  async update(userId: string, turnId: string, update: TurnUpdate): Promise<boolean> {
    return (
      this.db
        .update(turns)
        .set(update)
        .where(and(eq(turns.id, turnId), eq(turns.userId, userId)))
        .run().changes > 0
    );
  }

  /** Every turn still marked running, system-wide (restart recovery ends them; not scoped by user). */
  async listRunning(): Promise<TurnRow[]> {
    return this.db
      .select()
      .from(turns)
      .where(eq(turns.status, "running"))
      .orderBy(asc(turns.startedAt))
      .all();
  }

  /** The keys of every turn still marked running, system-wide, oldest first (no checkpoint read). */
  async listRunningKeys(): Promise<RunningTurnKey[]> {
    return this.runningKeysStatement.all();
  }
}

/** A placeholder in an UPDATE's SET, encoded like the column (JSON columns too) when it runs. */
function bound(name: string, column: Column): SQL {
  return sql`${sql.param(sql.placeholder(name), column)}`;
}
