import { NotFoundError } from "@agentwire-chat/protocol";
import { and, eq } from "drizzle-orm";
import type { Db } from "./open-database.js";
import { threads } from "./schema/index.js";

/** Throws not_found unless the thread is the user's; given a transaction, the check is part of it. */
export function assertThreadOwned(db: Pick<Db, "select">, userId: string, threadId: string): void {
  const owned = db
    .select({ id: threads.id })
    .from(threads)
    .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
    .get();
  if (!owned) throw new NotFoundError("thread");
}
