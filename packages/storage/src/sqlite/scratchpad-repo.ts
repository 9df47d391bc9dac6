import { applyScratchpadOps, editScratchpadItem, ScratchpadOpError } from "@agentwire/agents";
import type { ScratchpadEdit, ScratchpadItem, ScratchpadOp } from "@agentwire/protocol";
import { NotFoundError } from "@agentwire/protocol";
import { and, asc, eq } from "drizzle-orm";
import type { ScratchpadRepo } from "../repositories.js";
import { toScratchpadItem, toScratchpadRow } from "../scratchpad-rows.js";
import type { Db } from "./open-database.js";
import { scratchpadItems, threads } from "./schema/index.js";

/** Scratchpad rows of a thread, always through the owning user. */
export class SqliteScratchpadRepo implements ScratchpadRepo {
  constructor(private readonly db: Db) {}

  /** The thread's items in insertion order; none for another user's thread (every row carries its user). */
  async list(userId: string, threadId: string): Promise<ScratchpadItem[]> {
    return this.read(this.db, userId, threadId);
  }

  /** Applies the ops in one (synchronous) transaction and returns the changed items, whole. */
  async apply(
    userId: string,
    threadId: string,
    ops: ScratchpadOp[],
    now = Date.now(),
  ): Promise<ScratchpadItem[]> {
    return this.db.transaction((tx) => {
      this.assertOwned(tx, userId, threadId);
      const current = this.read(tx, userId, threadId);
      const result = applyScratchpadOps(current, ops, now);
      if (!result.ok) throw new ScratchpadOpError(result.message);
      for (const item of result.updated) {
        const row = toScratchpadRow(userId, threadId, item, 0);
        tx.update(scratchpadItems)
          .set({
            kind: row.kind,
            title: row.title,
            details: row.details,
            status: row.status,
            relatedIds: row.relatedIds,
            updatedAt: row.updatedAt,
          })
          .where(and(eq(scratchpadItems.threadId, threadId), eq(scratchpadItems.id, item.id)))
          .run();
      }
      if (result.added.length > 0) {
        tx.insert(scratchpadItems)
          .values(
            result.added.map((item, i) => toScratchpadRow(userId, threadId, item, current.length + i + 1)),
          )
          .run();
      }
      return [...result.updated, ...result.added];
    });
  }

  /** Applies the user's edit to one item in one transaction; undefined when the thread has no such item. */
  async edit(
    userId: string,
    threadId: string,
    itemId: string,
    edit: ScratchpadEdit,
    now = Date.now(),
  ): Promise<ScratchpadItem | undefined> {
    return this.db.transaction((tx) => {
      const where = and(
        eq(scratchpadItems.threadId, threadId),
        eq(scratchpadItems.id, itemId),
        eq(scratchpadItems.userId, userId),
      );
      const row = tx.select().from(scratchpadItems).where(where).get();
      if (!row) return undefined;
      const item = editScratchpadItem(toScratchpadItem(row), edit, now);
      const next = toScratchpadRow(userId, threadId, item, row.position);
      tx.update(scratchpadItems)
        .set({
          kind: next.kind,
          title: next.title,
          details: next.details,
          status: next.status,
          updatedAt: now,
        })
        .where(where)
        .run();
      return item;
    });
  }

  /** Deletes every item of the user's thread; how many there were. */
  async clear(userId: string, threadId: string): Promise<number> {
    return this.db
      .delete(scratchpadItems)
      .where(and(eq(scratchpadItems.threadId, threadId), eq(scratchpadItems.userId, userId)))
      .run().changes;
  }

  private read(db: Pick<Db, "select">, userId: string, threadId: string): ScratchpadItem[] {
    return db
      .select()
      .from(scratchpadItems)
      .where(and(eq(scratchpadItems.threadId, threadId), eq(scratchpadItems.userId, userId)))
      .orderBy(asc(scratchpadItems.position))
      .all()
      .map(toScratchpadItem);
  }

  private assertOwned(db: Pick<Db, "select">, userId: string, threadId: string): void {
    const owned = db
      .select({ id: threads.id })
      .from(threads)
      .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
      .get();
    if (!owned) throw new NotFoundError("thread");
  }
}
