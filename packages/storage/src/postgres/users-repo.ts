import { eq } from "drizzle-orm";
import type { UsersRepo } from "../contract/repositories.js";
import type { PgDb } from "./open-postgres.js";
import { users } from "./schema/index.js";

/** Users: created on first sight (static tokens, `local`, `token create`). */
export class PgUsersRepo implements UsersRepo {
  constructor(private readonly db: PgDb) {}

  /** Creates the user if missing. */
  async ensure(userId: string, now = Date.now()): Promise<void> {
    await this.db.insert(users).values({ id: userId, createdAt: now }).onConflictDoNothing();
  }

  /** True when the user exists. */
  async exists(userId: string): Promise<boolean> {
    const rows = await this.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1);
    return rows.length > 0;
  }
}
