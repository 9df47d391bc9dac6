import { NotFoundError } from "@agentwire-chat/protocol";
import { and, eq } from "drizzle-orm";
import type { PgDb } from "./open-postgres.js";
import { threads } from "./schema/index.js";

/** Rejects with not_found unless the thread is the user's (a plain read: callers that must lock the row do it themselves). */
export async function assertThreadOwned(
  db: Pick<PgDb, "select">,
  userId: string,
  threadId: string,
): Promise<void> {
  const owned = await db
    .select({ id: threads.id })
    .from(threads)
    .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
    .limit(1);
  if (owned.length === 0) throw new NotFoundError("thread");
}
