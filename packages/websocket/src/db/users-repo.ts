import { eq } from "drizzle-orm";
import type { Db } from "./open-database.js";
import { users } from "./schema/index.js";

/** Users: created on first sight (static tokens, `local`, `token create`). */
export class UsersRepo {
  constructor(private readonly db: Db) {}

  /** Creates the user if missing. */
  ensure(userId: string, now = Date.now()): void {
    this.db.insert(users).values({ id: userId, createdAt: now }).onConflictDoNothing().run();
  }

  /** True when the user exists. */
  exists(userId: string): boolean {
    return this.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).get() !== undefined;
  }
}
