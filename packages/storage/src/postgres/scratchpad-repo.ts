import { applyScratchpadOps, editScratchpadItem, ScratchpadOpError } from "@agentwire/agents";
import type { ScratchpadEdit, ScratchpadItem, ScratchpadOp } from "@agentwire/protocol";
import { NotFoundError } from "@agentwire/protocol";
import { and, asc, eq } from "drizzle-orm";
import type { ScratchpadRepo } from "../repositories.js";
import { toScratchpadItem, toScratchpadRow } from "../scratchpad-rows.js";
import type { PgDb } from "./open-postgres.js";
import { scratchpadItems, threads } from "./schema/index.js";

type Reader = Pick<PgDb, "select">;

/** Scratchpad rows of a thread, always through the owning user. */
export class PgScratchpadRepo implements ScratchpadRepo {
  constructor(private readonly db: PgDb) {}

  /** The thread's items in insertion order; none for another user's thread (every row carries its user). */
  async list(userId: string, threadId: string): Promise<ScratchpadItem[]> {
    return read(this.db, userId, threadId);
  }

  /**
   * Applies the ops in one transaction and returns the changed items, whole. The thread row is locked
   * first (the owner check and a lock in one), so two batches on one thread, from any instance, run one
   * after the other and never assign the same new id.
   */
  async apply(
    userId: string,
    threadId: string,
    ops: ScratchpadOp[],
    now = Date.now(),
  ): Promise<ScratchpadItem[]> {
    return this.db.transaction(async (tx) => {
      const owned = await tx
        .select({ id: threads.id })
        .from(threads)
        .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
        .for("update");
      if (owned.length === 0) throw new NotFoundError("thread");
      const current = await read(tx, userId, threadId);
      const result = applyScratchpadOps(current, ops, now);
      if (!result.ok) throw new ScratchpadOpError(result.message);
      for (const item of result.updated) {
        const row = toScratchpadRow(userId, threadId, item, 0);
        await tx
          .update(scratchpadItems)
          .set({
            kind: row.kind,
            title: row.title,
            details: row.details,
            status: row.status,
            relatedIds: row.relatedIds,
            updatedAt: row.updatedAt,
          })
          .where(and(eq(scratchpadItems.threadId, threadId), eq(scratchpadItems.id, item.id)));
      }
      if (result.added.length > 0) {
        await tx
          .insert(scratchpadItems)
          .values(
            result.added.map((item, i) => toScratchpadRow(userId, threadId, item, current.length + i + 1)),
          );
      }
      return [...result.updated, ...result.added];
    });
  }

  /** Applies the user's edit to one item (its row locked meanwhile); undefined when the thread has no such item. */
  async edit(
    userId: string,
    threadId: string,
    itemId: string,
    edit: ScratchpadEdit,
    now = Date.now(),
  ): Promise<ScratchpadItem | undefined> {
    return this.db.transaction(async (tx) => {
      const where = and(
        eq(scratchpadItems.threadId, threadId),
        eq(scratchpadItems.id, itemId),
        eq(scratchpadItems.userId, userId),
      );
      const [row] = await tx.select().from(scratchpadItems).where(where).for("update");
      if (!row) return undefined;
      const item = editScratchpadItem(toScratchpadItem(row), edit, now);
      const next = toScratchpadRow(userId, threadId, item, row.position);
      await tx
        .update(scratchpadItems)
        .set({
          kind: next.kind,
          title: next.title,
          details: next.details,
          status: next.status,
          updatedAt: now,
        })
        .where(where);
      return item;
    });
  }

  /** Deletes every item of the user's thread; how many there were. */
  async clear(userId: string, threadId: string): Promise<number> {
    const result = await this.db
      .delete(scratchpadItems)
      .where(and(eq(scratchpadItems.threadId, threadId), eq(scratchpadItems.userId, userId)));
    return result.rowCount ?? 0;
  }
}

async function read(db: Reader, userId: string, threadId: string): Promise<ScratchpadItem[]> {
  const rows = await db
    .select()
    .from(scratchpadItems)
    .where(and(eq(scratchpadItems.threadId, threadId), eq(scratchpadItems.userId, userId)))
    .orderBy(asc(scratchpadItems.position));
  return rows.map(toScratchpadItem);
}
