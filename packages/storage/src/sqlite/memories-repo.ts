import { randomUUID } from "node:crypto";
import { and, asc, count, eq } from "drizzle-orm";
import type { MemoriesRepo } from "../contract/repositories.js";
import type { Db } from "./open-database.js";
import { memories } from "./schema/index.js";

/** Per-user key/value memory rows; every query is scoped by the user id, never by a key alone. */
export class SqliteMemoriesRepo implements MemoriesRepo {
  constructor(private readonly db: Db) {}

  /** The user's keys, sorted (byte order, as SQLite's BINARY collation). */
  async keys(userId: string): Promise<string[]> {
    return this.db
      .select({ key: memories.key })
      .from(memories)
      .where(eq(memories.userId, userId))
      .orderBy(asc(memories.key))
      .all()
      .map((r) => r.key);
  }

  /** The value under the user's key, or undefined. */
  async get(userId: string, key: string): Promise<string | undefined> {
    return this.db
      .select({ value: memories.value })
      .from(memories)
      .where(and(eq(memories.userId, userId), eq(memories.key, key)))
      .get()?.value;
  }

  /** Creates or replaces the value under the user's key (one statement: an upsert on (user_id, key)). */
  async set(userId: string, key: string, value: string, now = Date.now()): Promise<void> {
    this.db
      .insert(memories)
      .values({ id: randomUUID(), userId, key, value, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: [memories.userId, memories.key], set: { value, updatedAt: now } })
      .run();
  }

  /** Deletes the user's key; false when there was none. */
  async delete(userId: string, key: string): Promise<boolean> {
    return (
      this.db
        .delete(memories)
        .where(and(eq(memories.userId, userId), eq(memories.key, key)))
        .run().changes > 0
    );
  }

  /** How many keys the user has. */
  async count(userId: string): Promise<number> {
    return this.db.select({ n: count() }).from(memories).where(eq(memories.userId, userId)).get()?.n ?? 0;
  }

  /** Every key of the user with its value, sorted by key (byte order). */
  async list(userId: string): Promise<{ key: string; value: string; updatedAt: number }[]> {
    return this.db
      .select({ key: memories.key, value: memories.value, updatedAt: memories.updatedAt })
      .from(memories)
      .where(eq(memories.userId, userId))
      .orderBy(asc(memories.key))
      .all();
  }

  /** Deletes every key of the user; how many there were. */
  async clear(userId: string): Promise<number> {
    return this.db.delete(memories).where(eq(memories.userId, userId)).run().changes;
  }
}
