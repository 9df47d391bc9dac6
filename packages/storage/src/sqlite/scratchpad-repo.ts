import type { ScratchpadEdit, ScratchpadItem, ScratchpadOp } from "@agentwire-chat/protocol";
import { and, asc, eq } from "drizzle-orm";
import type { ScratchpadRepo } from "../contract/repositories.js";
import { toScratchpadItem } from "../contract/scratchpad-rows.js";
import { scratchpadEditWrite, scratchpadOpWrites } from "../shared/scratchpad-writes.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { Db } from "./open-database.js";
import { scratchpadItems } from "./schema/index.js";

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
      assertThreadOwned(tx, userId, threadId);
      const current = this.read(tx, userId, threadId);
      const writes = scratchpadOpWrites(userId, threadId, current, ops, now);
      for (const { id, columns } of writes.updates) {
        tx.update(scratchpadItems)
          .set(columns)
          .where(and(eq(scratchpadItems.threadId, threadId), eq(scratchpadItems.id, id)))
          .run();
      }
      if (writes.inserts.length > 0) tx.insert(scratchpadItems).values(writes.inserts).run();
      return writes.items;
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
      const { item, columns } = scratchpadEditWrite(row, edit, now);
      tx.update(scratchpadItems).set(columns).where(where).run();
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
}
