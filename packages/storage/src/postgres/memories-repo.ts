import { randomUUID } from "node:crypto";
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { MemoriesRepo } from "../contract/repositories.js";
import type { PgDb } from "./open-postgres.js";
import { memories } from "./schema/index.js";

/** Per-user key/value memory rows; every query is scoped by the user id, never by a key alone. */
export class PgMemoriesRepo implements MemoriesRepo {
  constructor(private readonly db: PgDb) {}

  /** The user's keys, sorted by bytes: `COLLATE "C"` gives SQLite's BINARY order whatever the database's locale. */
  async keys(userId: string): Promise<string[]> {
    const rows = await this.db
      .select({ key: memories.key })
      .from(memories)
      .where(eq(memories.userId, userId))
      .orderBy(asc(sql`${memories.key} collate "C"`));
    return rows.map((r) => r.key);
  }

  /** The value under the user's key, or undefined. */
  async get(userId: string, key: string): Promise<string | undefined> {
    const rows = await this.db
      .select({ value: memories.value })
      .from(memories)
      .where(and(eq(memories.userId, userId), eq(memories.key, key)))
      .limit(1);
    return rows[0]?.value;
  }

  /** Creates or replaces the value under the user's key (one statement: an upsert on (user_id, key)). */
  async set(userId: string, key: string, value: string, now = Date.now()): Promise<void> {
    await this.db
      .insert(memories)
      .values({ id: randomUUID(), userId, key, value, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: [memories.userId, memories.key], set: { value, updatedAt: now } });
  }

  /** Deletes the user's key; false when there was none. */
  async delete(userId: string, key: string): Promise<boolean> {
    const result = await this.db
      .delete(memories)
      .where(and(eq(memories.userId, userId), eq(memories.key, key)));
    return (result.rowCount ?? 0) > 0;
  }

  /** How many keys the user has. */
  async count(userId: string): Promise<number> {
    // drizzle's count() casts Postgres's bigint count to a number.
    const rows = await this.db.select({ n: count() }).from(memories).where(eq(memories.userId, userId));
    return rows[0]?.n ?? 0;
  }

  /** Every key of the user with its value, sorted by bytes (as `keys`). */
  async list(userId: string): Promise<{ key: string; value: string; updatedAt: number }[]> {
    return this.db
      .select({ key: memories.key, value: memories.value, updatedAt: memories.updatedAt })
      .from(memories)
      .where(eq(memories.userId, userId))
      .orderBy(asc(sql`${memories.key} collate "C"`));
  }

  /** Deletes every key of the user; how many there were. */
  async clear(userId: string): Promise<number> {
    const result = await this.db.delete(memories).where(eq(memories.userId, userId));
    return result.rowCount ?? 0;
  }
}
