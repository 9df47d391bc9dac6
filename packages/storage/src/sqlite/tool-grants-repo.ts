import { and, eq } from "drizzle-orm";
import type { ToolGrantsRepo } from "../contract/repositories.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { Db } from "./open-database.js";
import { toolGrants } from "./schema/index.js";

/** Tools allowed for the rest of a thread, always through the owning user. */
export class SqliteToolGrantsRepo implements ToolGrantsRepo {
  constructor(private readonly db: Db) {}

  /** Allows the tool in the user's thread, in one transaction with the owner check. */
  async grant(userId: string, threadId: string, toolName: string, now = Date.now()): Promise<void> {
    this.db.transaction((tx) => {
      assertThreadOwned(tx, userId, threadId);
      tx.insert(toolGrants)
        .values({ threadId, toolName, userId, createdAt: now })
        .onConflictDoNothing()
        .run();
    });
  }

  /** Whether the user allowed the tool in that thread of theirs. */
  async has(userId: string, threadId: string, toolName: string): Promise<boolean> {
    const row = this.db
      .select({ toolName: toolGrants.toolName })
      .from(toolGrants)
      .where(
        and(
          eq(toolGrants.threadId, threadId),
          eq(toolGrants.toolName, toolName),
          eq(toolGrants.userId, userId),
        ),
      )
      .get();
    return row !== undefined;
  }
}
