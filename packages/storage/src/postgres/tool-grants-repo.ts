import { and, eq } from "drizzle-orm";
import type { ToolGrantsRepo } from "../contract/repositories.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { PgDb } from "./open-postgres.js";
import { toolGrants } from "./schema/index.js";

/** Tools allowed for the rest of a thread, always through the owning user. */
export class PgToolGrantsRepo implements ToolGrantsRepo {
  constructor(private readonly db: PgDb) {}

  /** Allows the tool in the user's thread; another user's thread is not_found. */
  async grant(userId: string, threadId: string, toolName: string, now = Date.now()): Promise<void> {
    await assertThreadOwned(this.db, userId, threadId);
    await this.db
      .insert(toolGrants)
      .values({ threadId, toolName, userId, createdAt: now })
      .onConflictDoNothing();
  }

  /** Whether the user allowed the tool in that thread of theirs. */
  async has(userId: string, threadId: string, toolName: string): Promise<boolean> {
    const rows = await this.db
      .select({ toolName: toolGrants.toolName })
      .from(toolGrants)
      .where(
        and(
          eq(toolGrants.threadId, threadId),
          eq(toolGrants.toolName, toolName),
          eq(toolGrants.userId, userId),
        ),
      )
      .limit(1);
    return rows.length > 0;
  }
}
