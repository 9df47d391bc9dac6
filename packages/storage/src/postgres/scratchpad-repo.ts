import type { ScratchpadEdit, ScratchpadItem, ScratchpadOp } from "@agentwire-chat/protocol";
import { NotFoundError } from "@agentwire-chat/protocol";
import { and, asc, eq } from "drizzle-orm";
import type { ScratchpadRepo } from "../contract/repositories.js";
import { toScratchpadItem } from "../contract/scratchpad-rows.js";
import { scratchpadEditWrite, scratchpadOpWrites } from "../shared/scratchpad-writes.js";
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
      const writes = scratchpadOpWrites(userId, threadId, current, ops, now);
      for (const { id, columns } of writes.updates) {
        await tx
          .update(scratchpadItems)
          .set(columns)
          .where(and(eq(scratchpadItems.threadId, threadId), eq(scratchpadItems.id, id)));
      }
      if (writes.inserts.length > 0) await tx.insert(scratchpadItems).values(writes.inserts);
      return writes.items;
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
      const { item, columns } = scratchpadEditWrite(row, edit, now);
      await tx.update(scratchpadItems).set(columns).where(where);
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
