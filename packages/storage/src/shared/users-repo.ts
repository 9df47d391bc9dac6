import { eq } from "drizzle-orm";
import type { UsersRepo } from "../contract/repositories.js";
import type { Dialect } from "./dialect.js";

/** Users: created on first sight (static tokens, `local`, `token create`). */
export class SharedUsersRepo implements UsersRepo {
  constructor(private readonly dialect: Dialect) {}

  /** Creates the user if missing. */
  async ensure(userId: string, now = Date.now()): Promise<void> {
    await this.dialect.insert(this.dialect.tables.users, { id: userId, createdAt: now }, "nothing");
  }

  /** True when the user exists. */
  async exists(userId: string): Promise<boolean> {
    const { users } = this.dialect.tables;
    const row = await this.dialect.first({
      table: users,
      fields: { id: users.id },
      where: eq(users.id, userId),
    });
    return row !== undefined;
  }
}
