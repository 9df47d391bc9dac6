import { eq } from "drizzle-orm";
import type { UsersRepo } from "../contract/repositories.js";
import type { Db } from "./open-database.js";
import { users } from "./schema/index.js";

/** Users: created on first sight (static tokens, `local`, `token create`). */
export class SqliteUsersRepo implements UsersRepo {
  constructor(private readonly db: Db) {}

  /** Creates the user if missing. */
  async ensure(userId: string, now = Date.now()): Promise<void> {
    this.db.insert(users).values({ id: userId, createdAt: now }).onConflictDoNothing().run();
  }

  /** True when the user exists. */
  async exists(userId: string): Promise<boolean> {
    return this.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).get() !== undefined;
  }
}
